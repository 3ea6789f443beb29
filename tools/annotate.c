// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx annotate's parts (annotate.h): the self samples of the profile's
 * functions by address; where a function lies in its ELF file (libelf);
 * its instructions, as objdump disassembles them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <gelf.h>

#include "annotate.h"

extern char **environ;

/* ---- the self samples by function and address ------------------------- */

/* the innermost frame of a stack, and what the stack weighs */
struct ann_top {
	const struct prof_frame *fr;
	__u64 count, weight;
};

static int cmp_ptr(const void *a, const void *b)
{
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

/*
 * the same function: the profile's strings are interned, so a module and
 * a name are the same pointer wherever they are
 */
static int cmp_fn(const struct prof_frame *x, const struct prof_frame *y)
{
	int c;

	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	c = cmp_ptr(x->module, y->module);
	return c ? c : cmp_ptr(x->name, y->name);
}

static int cmp_top(const void *a, const void *b)
{
	const struct ann_top *x = a, *y = b;
	__u64 ox = x->fr->addr - x->fr->sym_start;
	__u64 oy = y->fr->addr - y->fr->sym_start;
	int c = cmp_fn(x->fr, y->fr);

	return c ? c : ox < oy ? -1 : ox > oy;
}

static int cmp_hot(const void *a, const void *b)
{
	const struct ann_sym *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->fr->name, y->fr->name);
}

/* the tops of @t[0..@n), one function, into @s and @pool */
static void fill_sym(struct ann_sym *s, const struct ann_top *t, size_t n,
		     struct ann_addr *pool)
{
	size_t i;

	s->fr = t[0].fr;
	s->addrs = pool;
	for (i = 0; i < n; i++) {
		__u64 off = t[i].fr->addr - t[i].fr->sym_start;
		struct ann_addr *a = &s->addrs[s->nr_addrs];

		if (!s->nr_addrs || a[-1].off != off)
			s->nr_addrs++;
		else
			a--;
		a->off = off;
		a->count += t[i].count;
		a->weight += t[i].weight;
		s->count += t[i].count;
		s->weight += t[i].weight;
	}
}

int ann_collect(const struct prof *p, enum prof_weight w,
		struct ann_syms *out)
{
	size_t i, j, nt = 0, nv = 0, cap = p->nr_stacks ? p->nr_stacks : 1;
	struct ann_top *t = calloc(cap, sizeof(*t));

	memset(out, 0, sizeof(*out));
	out->addrs = calloc(cap, sizeof(*out->addrs));
	if (!t || !out->addrs)
		goto nomem;
	for (i = 0; i < p->nr_stacks; i++) {
		const struct prof_stack *s = &p->stacks[i];
		const struct prof_frame *fr;

		if (!s->nr)
			continue;
		fr = &p->frames[s->frames[0] - 1];
		if (!fr->name || fr->unknown) {
			out->unnamed += s->count;
			continue;
		}
		t[nt].fr = fr;
		t[nt].count = s->count;
		t[nt++].weight = prof_stack_weight(s, w);
	}
	qsort(t, nt, sizeof(*t), cmp_top);
	for (i = 0; i < nt; i = j) {
		for (j = i + 1; j < nt && !cmp_fn(t[i].fr, t[j].fr); j++)
			;
		nv++;
	}
	out->v = calloc(nv ? nv : 1, sizeof(*out->v));
	if (!out->v)
		goto nomem;
	for (i = 0; i < nt; i = j) {
		for (j = i + 1; j < nt && !cmp_fn(t[i].fr, t[j].fr); j++)
			;
		fill_sym(&out->v[out->n++], t + i, j - i, out->addrs + i);
	}
	qsort(out->v, out->n, sizeof(*out->v), cmp_hot);
	free(t);
	return 0;
nomem:
	free(t);
	ann_syms_free(out);
	return -ENOMEM;
}

void ann_syms_free(struct ann_syms *s)
{
	free(s->v);
	free(s->addrs);
	memset(s, 0, sizeof(*s));
}

/* ---- ELF addresses ------------------------------------------------------ */

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_open(const char *path, struct elf_file *e, char *why,
		    size_t len)
{
	e->elf = NULL;
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		int err = -errno;

		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return err;
	}
	elf_version(EV_CURRENT);
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
		snprintf(why, len, "%s is not an ELF file", path);
		return -ENOEXEC;
	}
	return 0;
}

static void elf_close(struct elf_file *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
}

/*
 * The function symbols of @e (.symtab, else .dynsym): the one named
 * @name at @addr (either may be left out: NULL, 0) into @r, counting
 * those of that name.  true if one was found.
 */
static bool find_func(struct elf_file *e, const char *name, __u64 addr,
		      struct ann_range *r)
{
	static const GElf_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	bool found = false;
	unsigned int t;

	r->nr_named = 0;
	for (t = 0; !found && t < 2; t++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(e->elf, scn))) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Shdr sh;
			GElf_Sym s;
			int k;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[t] ||
			    !d || !sh.sh_entsize)
				continue;
			for (k = 0; gelf_getsym(d, k, &s); k++) {
				const char *nm = elf_strptr(e->elf, sh.sh_link,
							    s.st_name);

				if (GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    s.st_shndx == SHN_UNDEF || !nm ||
				    (name && strcmp(nm, name)) ||
				    (addr && s.st_value != addr))
					continue;
				r->nr_named++;
				if (found)
					continue;
				found = true;
				r->start = s.st_value;
				r->stop = s.st_size ? s.st_value + s.st_size :
					  0;
			}
		}
	}
	return found;
}

/*
 * the ELF address mapped at @mod_start, where the file offset @pgoff is
 * mapped: the first loadable segment from that offset, less the part of
 * its page before it
 */
static bool load_vaddr(Elf *elf, __u64 pgoff, __u64 *vaddr)
{
	size_t i, nr;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nr))
		return false;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    ph.p_offset < pgoff || ph.p_offset - pgoff >= 0x10000)
			continue;
		*vaddr = ph.p_vaddr - (ph.p_offset - pgoff);
		return true;
	}
	return false;
}

int ann_elf_user(const struct ann_sym *s, struct ann_range *r, char *why,
		 size_t len)
{
	const struct prof_frame *fr = s->fr;
	struct elf_file e;
	__u64 base;
	int err;

	memset(r, 0, sizeof(*r));
	err = elf_open(fr->module, &e, why, len);
	if (!err && !load_vaddr(e.elf, fr->mod_pgoff, &base)) {
		snprintf(why, len, "%s has no loadable segment at file offset "
			 "0x%" PRIx64, fr->module, (uint64_t)fr->mod_pgoff);
		err = -ENOEXEC;
	}
	if (!err) {
		__u64 start = fr->sym_start - fr->mod_start + base;

		/* its size; a stripped file (debug file apart): unknown */
		if (!find_func(&e, fr->name, start, r) &&
		    !find_func(&e, NULL, start, r)) {
			r->start = start;
			r->stop = 0;
		}
	}
	elf_close(&e);
	return err;
}

int ann_elf_named(const char *path, const char *name, struct ann_range *r,
		  char *why, size_t len)
{
	struct elf_file e;
	int err;

	memset(r, 0, sizeof(*r));
	err = elf_open(path, &e, why, len);
	if (!err && !find_func(&e, name, 0, r)) {
		snprintf(why, len, "%s has no function symbol %s (stripped, "
			 "or another kernel's?)", path, name);
		err = -ENOENT;
	}
	elf_close(&e);
	return err;
}

/* ---- objdump ----------------------------------------------------------- */

/* "  113b:\tadd $0x1,%eax": an instruction line; false for the others */
static bool parse_insn(char *line, struct ann_insn *in)
{
	char *p = line, *end;

	while (*p == ' ')
		p++;
	errno = 0;
	in->addr = strtoull(p, &end, 16);
	if (end == p || *end != ':' || errno || (end[1] != '\t' &&
						 end[1] != ' '))
		return false;
	p = end + 1;
	while (*p == '\t' || *p == ' ')
		p++;
	p[strcspn(p, "\n")] = '\0';
	in->text = p;
	return *p;
}

static int read_insns(FILE *f, struct ann_insn **out, size_t *n)
{
	struct ann_insn *v = NULL, in;
	size_t nv = 0, cap = 0, llen = 0;
	char *line = NULL;
	int err = 0;

	while (!err && getline(&line, &llen, f) > 0) {
		if (!parse_insn(line, &in))
			continue;
		if (nv == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct ann_insn *t = realloc(v, nc * sizeof(*v));

			if (!t) {
				err = -ENOMEM;
				break;
			}
			v = t;
			cap = nc;
		}
		in.text = strdup(in.text);
		if (!in.text)
			err = -ENOMEM;
		else
			v[nv++] = in;
	}
	free(line);
	*out = v;
	*n = nv;
	return err;
}

int ann_objdump(const char *objdump, const char *style, const char *path,
		__u64 start, __u64 stop, struct ann_insn **out, size_t *n)
{
	char sa[40], so[40];
	char *argv[] = { (char *)objdump, "-d", "--no-show-raw-insn", sa, so,
			 (char *)path, NULL, NULL, NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], err, status;
	FILE *f;
	pid_t pid;

	*out = NULL;
	*n = 0;
	snprintf(sa, sizeof(sa), "--start-address=0x%" PRIx64,
		 (uint64_t)start);
	snprintf(so, sizeof(so), "--stop-address=0x%" PRIx64, (uint64_t)stop);
	if (style) {
		argv[6] = "-M";
		argv[7] = (char *)style;
	}
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	/* glibc's posix_spawn() returns exec's errno: ENOENT, EACCES */
	err = strchr(objdump, '/') ?
	      posix_spawn(&pid, objdump, &fa, NULL, argv, environ) :
	      posix_spawnp(&pid, objdump, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (err) {
		close(fds[0]);
		return err == ENOENT ? -ENOENT : -EIO;
	}
	f = fdopen(fds[0], "r");
	if (!f) {
		close(fds[0]);
		err = -ENOMEM;
	} else {
		err = read_insns(f, out, n);
		fclose(f);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		err = -EIO;
	if (err) {
		ann_insns_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return err;
}

void ann_insns_free(struct ann_insn *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}
