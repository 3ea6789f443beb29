/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx annotate (cmd-annotate.c): the self samples of a profile's
 * functions by address, where a function lies in its ELF file, and its
 * disassembly by objdump (annotate.c).
 */
#ifndef PMUCTX_TOOLS_ANNOTATE_H
#define PMUCTX_TOOLS_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "builtin.h"
#include "profile/profile.h"

extern const struct cmd cmd_annotate;

/* the self samples at one address of a function */
struct ann_addr {
	__u64 off;		/* from the function's start */
	__u64 count;		/* samples */
	__u64 weight;		/* their weight (--weight) */
};

/* a function with self samples: its frames' (kernel, module, name) */
struct ann_sym {
	/* the first frame seen: its name, module, start, where mapped */
	const struct prof_frame *fr;
	__u64 count, weight;
	struct ann_addr *addrs;		/* by offset */
	size_t nr_addrs;
};

/* the functions of a profile with self samples */
struct ann_syms {
	struct ann_sym *v;		/* hottest first */
	size_t n;
	struct ann_addr *addrs;		/* theirs, one array */
	__u64 unnamed;			/* samples in frames without a name */
};

/*
 * ann_collect() - the functions of @p's innermost frames (self samples),
 * weighed by @w, into @out: 0 or -ENOMEM
 */
int ann_collect(const struct prof *p, enum prof_weight w,
		struct ann_syms *out);
void ann_syms_free(struct ann_syms *s);

/* where a function lies in an ELF file: [start, stop), stop 0: unknown */
struct ann_range {
	__u64 start, stop;
	unsigned int nr_named;	/* symbols of that name (by name) */
};

/*
 * ann_elf_user() - the ELF addresses of user function @s in the file its
 * frames name (the address at run time less the file's load bias, from
 * the program headers; its size from the symbol table)
 * ann_elf_named() - those of the function @name of @path (a vmlinux:
 * the kernel's run-time addresses are not its link-time ones)
 * 0, or -errno with what went wrong in @why.
 */
int ann_elf_user(const struct ann_sym *s, struct ann_range *r, char *why,
		 size_t len);
int ann_elf_named(const char *path, const char *name, struct ann_range *r,
		  char *why, size_t len);

/* one line of objdump -d: an instruction */
struct ann_insn {
	__u64 addr;
	char *text;		/* as objdump prints it, tabs and all */
};

/*
 * ann_objdump() - objdump -d --no-show-raw-insn of [@start, @stop) of
 * @path (@style: its -M, or NULL); @objdump is run from $PATH unless it
 * has a '/'.  Its error messages go to standard error.  0, -ENOENT
 * (@objdump not found), -ENOMEM, or -EIO (it failed).
 */
int ann_objdump(const char *objdump, const char *style, const char *path,
		__u64 start, __u64 stop, struct ann_insn **out, size_t *n);
void ann_insns_free(struct ann_insn *v, size_t n);

#endif
