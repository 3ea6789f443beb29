#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-uapi-doc`: the kernel-doc of the UAPI header matches the
# structs it documents.
#
# For every struct in include/uapi/linux/pmuctx.h (or the headers given as
# arguments) that is preceded by a kernel-doc comment ("/**" ... "*/", the
# struct starting on the next non-blank line), the set of "@name:" entries
# in the comment must equal the set of the struct's member names:
#
#  - a member without an "@name:" entry is reported as undocumented;
#  - an "@name:" entry that is no member (a renamed or removed field, e.g.
#    a stale @__reserved3) is reported as stale;
#  - the comment must name the struct it precedes ("struct NAME - ...").
#
# Members are the declarators at the struct's top level: arrays count by
# their name (values[8] -> values), flexible arrays too, several
# declarators in one line each, bit-field widths are dropped.  The members
# of an anonymous struct or union count as members of the enclosing struct
# (kernel-doc documents them that way); a named nested struct or union
# counts as one member, and "@name.inner:" entries are accepted for it but
# not required.  "/* private: */" hides the members after it until
# "/* public: */", as in kernel-doc.  Only "@name:" at the start of a
# comment line is an entry: "@name" in running text is a reference.
#
# Prints one line per mismatch (FILE:LINE: ...) and exits 1 if there is
# any; 2 if a header cannot be read or holds no documented struct (the
# parser would be checking nothing).  Needs only perl (perl-base).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$#" -eq 0 ]; then
	set -- include/uapi/linux/pmuctx.h
fi

exec perl -e '
use strict;
use warnings;

my $bad = 0;

sub members {
	my ($body) = @_;	# struct body, comments removed, no braces
	# Flatten nested braces: an anonymous aggregate contributes its
	# members, a named one its name (taken from the text after "}").
	my @out;
	my $i = 0;
	my $n = length $body;
	my $stmt = "";
	while ($i < $n) {
		my $c = substr($body, $i, 1);
		if ($c eq "{") {
			# find the matching brace
			my ($d, $j) = (1, $i + 1);
			while ($j < $n && $d) {
				my $cj = substr($body, $j, 1);
				$d++ if $cj eq "{";
				$d-- if $cj eq "}";
				$j++;
			}
			my $inner = substr($body, $i + 1, $j - $i - 2);
			# the declarator(s) after the closing brace, up to ";"
			my $k = index($body, ";", $j);
			$k = $n if $k < 0;
			my $after = substr($body, $j, $k - $j);
			$after =~ s/\s+//g;
			if ($after eq "") {
				push @out, map { [$_, 0] } members($inner);
			} else {
				for my $d (split /,/, $after) {
					$d =~ s/\[.*//; $d =~ s/:.*//; $d =~ s/^\**//;
					push @out, [$d, 1] if length $d;
				}
			}
			$stmt = "";
			$i = $k + 1;
			next;
		}
		if ($c eq ";") {
			push @out, map { [$_, 0] } declarators($stmt);
			$stmt = "";
		} else {
			$stmt .= $c;
		}
		$i++;
	}
	return map { $_->[0] } @out;
}

sub declarators {
	my ($s) = @_;
	$s =~ s/^\s+|\s+$//g;
	return () if $s eq "";
	# __DECLARE_FLEX_ARRAY(type, name) declares "name"
	$s =~ s/\b__DECLARE_FLEX_ARRAY\s*\(\s*[^,()]+,\s*(\w+)\s*\)/x $1/g;
	# a function pointer "ret (*name)(args)" declares "name"
	$s =~ s/\(\s*\*\s*(\w+)\s*\)\s*\([^()]*\)/$1/g;
	$s =~ s/__attribute__\s*\(\(.*?\)\)//g;
	$s =~ s/\b__aligned\s*\([^()]*\)//g;
	# "type a, *b[3], c:2": one name per declarator
	my @names;
	for my $p (split /,/, $s) {
		$p =~ s/:\s*\w+\s*$//;		# bit-field width
		$p =~ s/\[[^\]]*\]//g;		# array dimensions
		$p =~ s/\s+$//;
		push @names, $1 if $p =~ /(\w+)$/;
	}
	return @names;
}

my $structs = 0;
for my $file (@ARGV) {
	open my $fh, "<", $file or do {
		print STDERR "check-uapi-doc: cannot read $file: $!\n";
		exit 2;
	};
	my @lines = <$fh>;
	close $fh;
	my $ln = 0;
	while ($ln < @lines) {
		if ($lines[$ln] !~ m{^\s*/\*\*\s*$}) {
			$ln++;
			next;
		}
		# a kernel-doc comment: collect it
		my $start = $ln + 1;
		my (@doc, %docline);
		my $docname;
		$ln++;
		while ($ln < @lines && $lines[$ln] !~ m{\*/}) {
			my $l = $lines[$ln];
			$docname = $1 if !defined $docname &&
				$l =~ /^\s*\*\s*struct\s+(\w+)\s*-/;
			if ($l =~ /^\s*\*\s*@([\w.]+)\s*:/) {
				my $name = $1;
				if (exists $docline{$name}) {
					printf "%s:%d: \@%s: described twice (also line %d)\n",
						$file, $ln + 1, $name, $docline{$name};
					$bad++;
				}
				$docline{$name} = $ln + 1;
			}
			$ln++;
		}
		$ln++;
		$ln++ while $ln < @lines && $lines[$ln] =~ /^\s*$/;
		if (!($ln < @lines && $lines[$ln] =~ /^\s*struct\s+(\w+)\s*\{/)) {
			if (defined $docname) {
				printf "%s:%d: the kernel-doc of struct %s is not followed by \"struct %s {\"\n",
					$file, $start, $docname, $docname;
				$bad++;
			}
			next;
		}
		my $sname = $1;
		my $sline = $ln + 1;
		$structs++;
		if (!defined $docname) {
			printf "%s:%d: struct %s: the kernel-doc comment does not start with \"struct %s - ...\"\n",
				$file, $start, $sname, $sname;
			$bad++;
		} elsif ($docname ne $sname) {
			printf "%s:%d: struct %s: the kernel-doc comment documents \"struct %s\"\n",
				$file, $start, $sname, $docname;
			$bad++;
		}
		# the body, up to the brace that closes the struct
		my $text = "";
		my $depth = 0;
		for (; $ln < @lines; $ln++) {
			$text .= $lines[$ln];
			$depth += () = $lines[$ln] =~ /\{/g;
			$depth -= () = $lines[$ln] =~ /\}/g;
			last if $depth == 0 && $text =~ /\}/;
		}
		$ln++;
		# kernel-doc also takes "/** @member: ... */" inside the body
		my $inner = 0;
		my $bl = $sline - 1;
		for my $l (split /\n/, $text) {
			$bl++;
			$inner = 1 if $l =~ m{/\*\*};
			if ($inner && $l =~ m{^\s*(?:/\*\*|\*)?\s*@([\w.]+)\s*:}) {
				if (exists $docline{$1}) {
					printf "%s:%d: \@%s: described twice (also line %d)\n",
						$file, $bl, $1, $docline{$1};
					$bad++;
				}
				$docline{$1} = $bl;
			}
			$inner = 0 if $l =~ m{\*/};
		}
		# private:/public: sections, then no comments, no preprocessor
		$text =~ s{/\*\s*private:.*?\*/.*?(?:/\*\s*public:.*?\*/|(?=\}\s*;\s*\z))}{}gs;
		$text =~ s{/\*.*?\*/}{ }gs;
		$text =~ s{//[^\n]*}{}g;
		$text =~ s{^\s*#[^\n]*}{}mg;
		$text =~ s/^[^{]*\{//s;
		$text =~ s/\}[^}]*\z//s;
		my @m = members($text);
		my %mem = map { $_ => 1 } @m;
		for my $m (@m) {
			next if exists $docline{$m};
			printf "%s:%d: struct %s: member \"%s\" has no \@%s: entry\n",
				$file, $sline, $sname, $m, $m;
			$bad++;
		}
		for my $d (sort { $docline{$a} <=> $docline{$b} } keys %docline) {
			my $base = $d;
			$base =~ s/\..*//;
			next if exists $mem{$d} || ($d ne $base && exists $mem{$base});
			printf "%s:%d: struct %s: \@%s: describes no member (stale or misspelt)\n",
				$file, $docline{$d}, $sname, $d;
			$bad++;
		}
	}
}
if (!$structs) {
	print STDERR "check-uapi-doc: no struct with a kernel-doc comment in @ARGV\n";
	exit 2;
}
if ($bad) {
	print "check-uapi-doc: $bad mismatch(es) in $structs documented structs\n";
	exit 1;
}
print "check-uapi-doc: $structs documented structs, every \@field matches a member\n";
exit 0;
' "$@"
