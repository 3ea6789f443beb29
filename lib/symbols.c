// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpmuctx: symbols of kernel and user addresses.
 *
 * Kernel: the text symbols of a kallsyms file (core and modules), sorted
 * by address; a symbol ends where the next one begins.  A kallsyms that
 * shows only zeros (kptr_restrict, no CAP_SYSLOG) leaves every kernel
 * address unknown (PMUCTX_SYM_HIDDEN).
 *
 * User: per process, the memory maps given with pmuctx_syms_add_maps(),
 * each with its time.  The map chosen for an address is the latest one
 * read at or before the sample that maps the address, else the newest
 * other one that does.  File mappings are looked up with elfutils'
 * libdwfl, one Dwfl per map, built from the map's text by
 * dwfl_linux_proc_maps_report() the first time it is needed: libdwfl
 * works out each file's load bias (PIE executables, shared libraries),
 * reads .symtab or .dynsym, and finds separate debug files.  No symbol
 * covers a PLT stub: those are named NAME@plt from the file's relocations
 * (x86_64, see "PLT stubs" below), as perf names them.  A file named with
 * pmuctx_syms_no_file() (its build-id changed since the recording) is
 * never opened: its module has no ELF, as for a file that is gone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "profile.h"

#define KERNEL_MODULE	"[kernel.kallsyms]"

/* ---- string arena ------------------------------------------------------ */

struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
};

struct arena {
	struct arena_blk *head;
};

static char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	struct arena_blk *b = a->head;
	char *p;

	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	memcpy(p, s, n);
	p[n] = '\0';
	b->used += n + 1;
	return p;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_blk *b = a->head;

		a->head = b->next;
		free(b);
	}
}

/* ---- kernel ------------------------------------------------------------- */

struct ksym {
	__u64 addr;
	const char *name;
	const char *mod;	/* KERNEL_MODULE or "[name]" (interned) */
};

struct kmod {
	const char *name;
	__u64 start, end;	/* lowest and highest symbol */
};

/* ---- user -------------------------------------------------------------- */

struct umap {
	__u64 start, end, pgoff;
	const char *path;	/* "" for anonymous */
};

struct snap {
	__u64 time;
	char *text;
	size_t len;
	struct umap *maps;
	size_t nmaps;
	Dwfl *dwfl;
	bool dwfl_tried;
};

struct proc {
	struct proc *next;	/* hash chain */
	pid_t pid;
	struct snap *snaps;	/* in time order */
	size_t nsnaps;
};

struct pmuctx_syms {
	__u32 flags;
	char *kallsyms_path;
	bool kernel_loaded;
	bool kernel_hidden;	/* the file shows only zero addresses */
	struct ksym *ksyms;
	size_t nksyms;
	struct kmod *kmods;
	size_t nkmods;
	struct proc **procs;
	size_t nbuckets;
	size_t nprocs;
	struct arena strings;
	char *debuginfo_path;
	Dwfl_Callbacks cbs;
	char **plt_names;	/* NAME@plt, made once each */
	size_t nplt_names;
	char **no_files;	/* pmuctx_syms_no_file(): not read */
	size_t nno_files;
};

/* ---- kallsyms ----------------------------------------------------------- */

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* the same address: keep a global name first (T before t) */
	return strcmp(x->name, y->name);
}

static const char *intern_mod(struct pmuctx_syms *y, const char *m, size_t n)
{
	size_t i;

	for (i = y->nkmods; i-- > 0;)
		if (strlen(y->kmods[i].name) == n &&
		    !memcmp(y->kmods[i].name, m, n))
			return y->kmods[i].name;
	return NULL;
}

static int add_kmod(struct pmuctx_syms *y, const char *name, __u64 addr)
{
	struct kmod *k;
	size_t i;

	for (i = y->nkmods; i-- > 0;)
		if (y->kmods[i].name == name)
			break;
	if (i == (size_t)-1) {
		k = realloc(y->kmods, (y->nkmods + 1) * sizeof(*k));
		if (!k)
			return -ENOMEM;
		y->kmods = k;
		i = y->nkmods++;
		k[i].name = name;
		k[i].start = addr;
		k[i].end = addr;
	}
	if (addr < y->kmods[i].start)
		y->kmods[i].start = addr;
	if (addr > y->kmods[i].end)
		y->kmods[i].end = addr;
	return 0;
}

static int load_kernel(struct pmuctx_syms *y)
{
	const char *path = y->kallsyms_path ? y->kallsyms_path :
			   "/proc/kallsyms";
	char line[1024];
	size_t cap = 0, nonzero = 0, total = 0;
	const char *core;
	FILE *f;
	int err = 0;

	y->kernel_loaded = true;
	if (y->flags & PMUCTX_SYMS_NO_KERNEL)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;		/* unknown kernel addresses */
	core = arena_strndup(&y->strings, KERNEL_MODULE,
			     strlen(KERNEL_MODULE));
	if (!core || add_kmod(y, core, 0)) {
		fclose(f);
		return -ENOMEM;
	}
	y->kmods[0].start = UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end, *name, *mod;
		unsigned long long a;
		const char *m = core;
		struct ksym *ks;
		char type;

		a = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		type = end[1];
		if (!type || end[2] != ' ')
			continue;
		total++;
		if (a)
			nonzero++;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = end + 3;
		name[strcspn(name, "\n")] = '\0';
		mod = strchr(name, '\t');
		if (mod) {
			char *close;

			*mod++ = '\0';
			close = strchr(mod, ']');
			if (*mod == '[' && close) {
				size_t n = (size_t)(close - mod) + 1;

				m = intern_mod(y, mod, n);
				if (!m)
					m = arena_strndup(&y->strings, mod, n);
				if (!m) {
					err = -ENOMEM;
					break;
				}
			}
		}
		if (!*name)
			continue;
		if (y->nksyms == cap) {
			size_t nc = cap ? cap * 2 : 65536;

			ks = realloc(y->ksyms, nc * sizeof(*ks));
			if (!ks) {
				err = -ENOMEM;
				break;
			}
			y->ksyms = ks;
			cap = nc;
		}
		ks = &y->ksyms[y->nksyms];
		ks->addr = a;
		ks->name = arena_strndup(&y->strings, name, strlen(name));
		ks->mod = m;
		if (!ks->name || add_kmod(y, m, a)) {
			err = -ENOMEM;
			break;
		}
		y->nksyms++;
	}
	fclose(f);
	if (err)
		return err;
	if (total && !nonzero) {
		y->kernel_hidden = true;
		y->nksyms = 0;
		return 0;
	}
	qsort(y->ksyms, y->nksyms, sizeof(*y->ksyms), cmp_ksym);
	return 0;
}

static const struct kmod *find_kmod(const struct pmuctx_syms *y,
				    const char *name)
{
	size_t i;

	for (i = 0; i < y->nkmods; i++)
		if (y->kmods[i].name == name)
			return &y->kmods[i];
	return NULL;
}

static int lookup_kernel(struct pmuctx_syms *y, __u64 addr, __u64 la,
			 struct pmuctx_sym *out)
{
	size_t lo = 0, hi, mid;
	const struct ksym *k;
	const struct kmod *km;
	int err;

	if (!y->kernel_loaded) {
		err = load_kernel(y);
		if (err)
			return err;
	}
	out->module = KERNEL_MODULE;
	if (y->kernel_hidden || !addr) {
		out->flags |= PMUCTX_SYM_HIDDEN | PMUCTX_SYM_UNKNOWN;
		return 1;
	}
	hi = y->nksyms;
	if (!hi || la < y->ksyms[0].addr) {
		out->flags |= PMUCTX_SYM_UNKNOWN | PMUCTX_SYM_NO_MAP;
		out->offset = addr;
		return 1;
	}
	/* the last symbol at or below la */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (y->ksyms[mid].addr <= la)
			lo = mid;
		else
			hi = mid;
	}
	/* several names at one address: the first sorted (T before t) */
	while (lo > 0 && y->ksyms[lo - 1].addr == y->ksyms[lo].addr)
		lo--;
	k = &y->ksyms[lo];
	km = find_kmod(y, k->mod);
	out->module = k->mod;
	if (km) {
		out->mod_start = km->start;
		out->mod_end = km->end;
	}
	out->name = k->name;
	out->start = k->addr;
	out->offset = addr - k->addr;
	return 0;
}

/* ---- maps ---------------------------------------------------------------- */

static int parse_maps(struct pmuctx_syms *y, struct snap *s)
{
	char *p = s->text, *end = s->text + s->len;
	size_t cap = 0;

	while (p < end && *p) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line_end = nl ? nl : end;
		unsigned long long a, b, off;
		char perms[8], *q;
		int n = 0;
		struct umap *m;

		if (sscanf(p, "%llx-%llx %7s %llx %*s %*s%n", &a, &b, perms,
			   &off, &n) >= 4 && n > 0 && p + n <= line_end &&
		    perms[2] == 'x') {
			q = p + n;
			while (q < line_end && (*q == ' ' || *q == '\t'))
				q++;
			if (s->nmaps == cap) {
				size_t nc = cap ? cap * 2 : 64;

				m = realloc(s->maps, nc * sizeof(*m));
				if (!m)
					return -ENOMEM;
				s->maps = m;
				cap = nc;
			}
			m = &s->maps[s->nmaps];
			m->start = a;
			m->end = b;
			m->pgoff = off;
			m->path = arena_strndup(&y->strings, q,
						(size_t)(line_end - q));
			if (!m->path)
				return -ENOMEM;
			s->nmaps++;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static const struct umap *snap_find(const struct snap *s, __u64 a)
{
	size_t i;

	for (i = 0; i < s->nmaps; i++)
		if (a >= s->maps[i].start && a < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

/* the mark of a module pmuctx_syms_no_file() named (its userdata) */
static char no_file_mark;

/* libdwfl's find_elf: not for a module marked by mark_no_file() */
static int syms_find_elf(Dwfl_Module *mod, void **userdata,
			 const char *name, Dwarf_Addr base, char **file_name,
			 Elf **elfp)
{
	if (*userdata == &no_file_mark) {
		*elfp = NULL;
		return -1;
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name,
					elfp);
}

static int mark_no_file(Dwfl_Module *mod, void **userdata, const char *name,
			Dwarf_Addr start, void *arg)
{
	const struct pmuctx_syms *y = arg;
	size_t i;

	(void)mod;
	(void)start;
	for (i = 0; name && i < y->nno_files; i++)
		if (!strcmp(name, y->no_files[i]))
			*userdata = &no_file_mark;
	return DWARF_CB_OK;
}

static Dwfl *snap_dwfl(struct pmuctx_syms *y, struct snap *s)
{
	FILE *f;

	if (s->dwfl_tried)
		return s->dwfl;
	s->dwfl_tried = true;
	s->dwfl = dwfl_begin(&y->cbs);
	if (!s->dwfl)
		return NULL;
	f = fmemopen(s->text, s->len, "r");
	if (!f) {
		dwfl_end(s->dwfl);
		s->dwfl = NULL;
		return NULL;
	}
	dwfl_report_begin(s->dwfl);
	/* files that cannot be opened are skipped: unknown symbols */
	dwfl_linux_proc_maps_report(s->dwfl, f);
	fclose(f);
	if (dwfl_report_end(s->dwfl, NULL, NULL)) {
		dwfl_end(s->dwfl);
		s->dwfl = NULL;
		return NULL;
	}
	if (y->nno_files)
		dwfl_getmodules(s->dwfl, mark_no_file, y, 0);
	return s->dwfl;
}

static struct proc *find_proc(const struct pmuctx_syms *y, pid_t pid)
{
	struct proc *p;

	if (!y->nbuckets)
		return NULL;
	for (p = y->procs[pmuctx__mix64((__u64)(__u32)pid) &
			  (y->nbuckets - 1)]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct proc *get_proc(struct pmuctx_syms *y, pid_t pid)
{
	struct proc *p = find_proc(y, pid);
	size_t h;

	if (p)
		return p;
	if (y->nprocs >= y->nbuckets) {
		size_t nb = y->nbuckets ? y->nbuckets * 2 : 256, i;
		struct proc **b = calloc(nb, sizeof(*b));

		if (!b)
			return NULL;
		for (i = 0; i < y->nbuckets; i++) {
			struct proc *q = y->procs[i], *next;

			for (; q; q = next) {
				next = q->next;
				h = pmuctx__mix64((__u64)(__u32)q->pid) &
				    (nb - 1);
				q->next = b[h];
				b[h] = q;
			}
		}
		free(y->procs);
		y->procs = b;
		y->nbuckets = nb;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	h = pmuctx__mix64((__u64)(__u32)pid) & (y->nbuckets - 1);
	p->next = y->procs[h];
	y->procs[h] = p;
	y->nprocs++;
	return p;
}

/* ---- PLT stubs (x86_64, aarch64) ------------------------------------------ */
/*
 * A call to a shared library's function goes through a stub that jumps
 * through a GOT slot the dynamic linker fills in.  On x86_64 stubs are in
 * - .plt: with lazy binding a 16-byte header ("push GOT+8; jmp *GOT+16"),
 *   then 16-byte entries "jmp *SLOT(%rip); push INDEX; jmp .plt"; with IBT
 *   (.plt.sec present) its entries are "endbr64; push INDEX; bnd jmp .plt";
 * - .plt.sec (IBT): 16-byte entries "endbr64; bnd jmp *SLOT(%rip)";
 * - .plt.got: "jmp *SLOT(%rip)" for functions whose slot is also the one
 *   their address is taken from (a GLOB_DAT relocation in .rela.dyn).
 * A stub is named after the symbol of the relocation of its slot
 * (R_X86_64_JUMP_SLOT in .rela.plt, GLOB_DAT), or, for the IBT .plt
 * entries that jump through no slot, of entry INDEX of .rela.plt; in
 * .dynsym, with "@plt" appended.  IRELATIVE relocations name no symbol:
 * such stubs (and the header) stay unknown.
 *
 * On aarch64 .plt has a 32-byte header, then 16-byte entries "adrp x16,
 * PAGE; ldr x17, [x16, #OFF]; add x16, x16, #OFF; br x17", each after a
 * "bti c" where the linker puts one, 24 bytes with -z pac-plt (an
 * autia1716 before the br, then a nop): the slot is
 * PAGE + OFF, named by its R_AARCH64_JUMP_SLOT relocation.  The header's
 * own adrp/ldr pair loads a slot without a relocation: it stays unknown.
 */

/* the PLT section that holds ELF address @a, or NULL */
static Elf_Scn *plt_section(Elf *elf, GElf_Addr a, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS ||
		    a < sh->sh_addr || a - sh->sh_addr >= sh->sh_size)
			continue;
		n = elf_strptr(elf, shstr, sh->sh_name);
		if (n && (!strcmp(n, ".plt") || !strcmp(n, ".plt.sec") ||
			  !strcmp(n, ".plt.got")))
			return scn;
		return NULL;
	}
	return NULL;
}

/*
 * the first instruction of the stub at @b (@n bytes), after endbr64 and a
 * bnd prefix: "jmp *disp32(%rip)" gives the GOT slot (@stub is its ELF
 * address), "push imm32" the .rela.plt index; false for anything else
 */
static bool plt_decode(const unsigned char *b, size_t n, GElf_Addr stub,
		       GElf_Addr *slot, long *index)
{
	size_t k = 0;
	__s32 v;

	if (n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e &&
	    b[3] == 0xfa)
		k = 4;
	if (k < n && b[k] == 0xf2)
		k++;
	if (k + 6 <= n && b[k] == 0xff && b[k + 1] == 0x25) {
		memcpy(&v, b + k + 2, 4);
		*slot = stub + k + 6 + (GElf_Addr)(__s64)v;
		return true;
	}
	if (k + 5 <= n && b[k] == 0x68) {
		memcpy(&v, b + k + 1, 4);
		*index = v;
		return v >= 0;
	}
	return false;
}

#define A64_BTI_C	0xd503245fU
#define A64_ADRP_X16	0x90000010U	/* under mask 0x9f00001f */
#define A64_LDR_X17_X16	0xf9400211U	/* under mask 0xffc003ff */
#define A64_BR_X17	0xd61f0220U
#define A64_NOP		0xd503201fU

static __u32 a64_insn(const unsigned char *b)
{
	return (__u32)b[0] | (__u32)b[1] << 8 | (__u32)b[2] << 16 |
	       (__u32)b[3] << 24;
}

/*
 * the aarch64 stub of .plt data @b (@n bytes at ELF address @base) that
 * holds ELF address @a: its start (at its "bti c", if any) in @stub and
 * the GOT slot it loads in @slot; false if @a is in no "adrp x16; ldr
 * x17, [x16, #OFF]; add; br x17" stub (the stub ends after its br and a
 * nop of padding: an address past it is not the stub's)
 */
static bool plt_decode_a64(const unsigned char *b, size_t n, GElf_Addr base,
			   GElf_Addr a, GElf_Addr *stub, GElf_Addr *slot)
{
	size_t off = (size_t)(a - base) & ~(size_t)3, o, back, end;
	__u32 i0, i1;
	__s64 page;

	if (off + 4 <= n && a64_insn(b + off) == A64_BTI_C)
		off += 4;
	for (back = 0; back <= 20 && back <= off; back += 4) {
		o = off - back;
		if (o + 8 > n)
			continue;
		i0 = a64_insn(b + o);
		i1 = a64_insn(b + o + 4);
		if ((i0 & 0x9f00001fU) != A64_ADRP_X16 ||
		    (i1 & 0xffc003ffU) != A64_LDR_X17_X16)
			continue;
		/* its br x17 (add; [autia1716;] br), then maybe a nop */
		for (end = o + 8; end <= o + 16 && end + 4 <= n &&
		     a64_insn(b + end) != A64_BR_X17; end += 4)
			;
		if (end > o + 16 || end + 4 > n)
			return false;
		end += 4;
		if (end + 4 <= n && a64_insn(b + end) == A64_NOP)
			end += 4;
		if (off >= end)
			return false;
		/* adrp: imm = immhi:immlo (21 bits, signed) pages */
		page = (__s64)((((i0 >> 5) & 0x7ffffU) << 2) | ((i0 >> 29) & 3U));
		if (page & (1LL << 20))
			page -= 1LL << 21;
		*slot = ((base + o) & ~(GElf_Addr)0xfff) +
			(GElf_Addr)(page * 4096) +
			(GElf_Addr)((i1 >> 10) & 0xfffU) * 8;
		*stub = base + o;
		if (o >= 4 && a64_insn(b + o - 4) == A64_BTI_C)
			*stub -= 4;
		return true;
	}
	return false;
}

/* the symbol of relocation @r of the RELA section @sh: its name or NULL */
static const char *plt_rel_name(Elf *elf, const GElf_Shdr *sh,
				const GElf_Rela *r)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr ssh;
	GElf_Sym sym;
	Elf_Data *d;

	if (!GELF_R_SYM(r->r_info) || !symscn || !gelf_getshdr(symscn, &ssh))
		return NULL;
	d = elf_getdata(symscn, NULL);
	if (!d || !gelf_getsym(d, (int)GELF_R_SYM(r->r_info), &sym))
		return NULL;
	return elf_strptr(elf, ssh.sh_link, sym.st_name);
}

/*
 * the symbol name of the relocation at GOT @slot in RELA section @scn, or
 * of its entry @index (@index >= 0)
 */
static const char *plt_rela_find(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
				 GElf_Addr slot, long index)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n, esz = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	GElf_Rela r;

	/*
	 * Entries by the data's size and the real entry size, not the
	 * header's sh_entsize: a hostile sh_entsize of 1 would make the
	 * loop run once per byte of the file.
	 */
	if (!d || !esz)
		return NULL;
	n = d->d_size / esz;
	if (index >= 0)
		return (size_t)index < n && gelf_getrela(d, (int)index, &r) ?
		       plt_rel_name(elf, sh, &r) : NULL;
	for (i = 0; i < n; i++)
		if (gelf_getrela(d, (int)i, &r) && r.r_offset == slot)
			return plt_rel_name(elf, sh, &r);
	return NULL;
}

/*
 * the symbol name of the relocation at GOT @slot, or of entry @index of
 * .rela.plt (@index >= 0): .rela.plt first (JUMP_SLOT), then the other
 * RELA sections (GLOB_DAT slots of .plt.got in .rela.dyn)
 */
static const char *plt_reloc(Elf *elf, GElf_Addr slot, long index)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t shstr;
	const char *sn, *name;
	int pass;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	for (pass = 0; pass < (index >= 0 ? 1 : 2); pass++) {
		for (scn = elf_nextscn(elf, NULL); scn;
		     scn = elf_nextscn(elf, scn)) {
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
				continue;
			sn = elf_strptr(elf, shstr, sh.sh_name);
			if (!sn || (pass == 0) != !strcmp(sn, ".rela.plt"))
				continue;
			name = plt_rela_find(elf, scn, &sh, slot, index);
			if (name)
				return name;
		}
	}
	return NULL;
}

/* NAME@plt, made once */
static const char *plt_intern(struct pmuctx_syms *y, const char *sym)
{
	size_t i, n = strlen(sym);
	char **v;

	for (i = 0; i < y->nplt_names; i++)
		if (!strncmp(y->plt_names[i], sym, n) &&
		    !strcmp(y->plt_names[i] + n, "@plt"))
			return y->plt_names[i];
	v = realloc(y->plt_names, (y->nplt_names + 1) * sizeof(*v));
	if (!v)
		return NULL;
	y->plt_names = v;
	v[y->nplt_names] = malloc(n + 5);
	if (!v[y->nplt_names])
		return NULL;
	memcpy(v[y->nplt_names], sym, n);
	memcpy(v[y->nplt_names] + n, "@plt", 5);
	return v[y->nplt_names++];
}

/*
 * plt_name() - NAME@plt when ELF address @a of @elf is in a PLT stub,
 * with the stub's ELF address in @start; NULL otherwise
 */
static const char *plt_name(struct pmuctx_syms *y, Elf *elf, GElf_Addr a,
			    GElf_Addr *start)
{
	GElf_Addr esz, stub, slot = 0;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	const char *sym;
	long index = -1;

	if (!gelf_getehdr(elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return NULL;
	scn = plt_section(elf, a, &sh);
	if (!scn)
		return NULL;
	if (eh.e_machine == EM_AARCH64) {
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf ||
		    !plt_decode_a64(d->d_buf, d->d_size, sh.sh_addr, a, &stub,
				    &slot))
			return NULL;
		goto found;
	}
	esz = sh.sh_entsize ? sh.sh_entsize : 16;
	stub = sh.sh_addr + (a - sh.sh_addr) / esz * esz;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || stub - sh.sh_addr + esz > d->d_size ||
	    !plt_decode((const unsigned char *)d->d_buf +
			(stub - sh.sh_addr), esz, stub, &slot, &index))
		return NULL;
found:
	sym = plt_reloc(elf, slot, index);
	if (!sym || !*sym)
		return NULL;
	*start = stub;
	return plt_intern(y, sym);
}

/*
 * an Arm ELF mapping symbol ("$x", "$d", "$a", "$t", maybe ".N" after):
 * it marks where code or data starts, names no function (perf drops them
 * too); an address whose nearest symbol is one stays unknown
 */
static bool is_mapping_symbol(Elf *elf, const char *name)
{
	GElf_Ehdr eh;

	if (!name || name[0] != '$' || !strchr("xdat", name[1]) ||
	    !name[1] || (name[2] && name[2] != '.'))
		return false;
	return elf && gelf_getehdr(elf, &eh) &&
	       (eh.e_machine == EM_AARCH64 || eh.e_machine == EM_ARM);
}

static int lookup_user(struct pmuctx_syms *y, pid_t pid, __u64 time,
		       __u64 addr, __u64 la, struct pmuctx_sym *out)
{
	struct proc *p = find_proc(y, pid);
	const struct umap *m = NULL;
	struct snap *s = NULL;
	Dwfl_Module *mod;
	Dwarf_Addr mstart, mend;
	GElf_Addr off, bias, pstart;
	GElf_Sym sym;
	const char *name;
	size_t i, best;
	Elf *elf;

	out->module = "[unknown]";
	out->offset = addr;
	if (!p || !p->nsnaps) {
		out->flags |= PMUCTX_SYM_UNKNOWN | PMUCTX_SYM_NO_MAP;
		return 1;
	}
	/* the latest map read at or before @time, then the others */
	for (best = 0; best + 1 < p->nsnaps && p->snaps[best + 1].time <= time;
	     best++)
		;
	if (p->snaps[best].time > time)
		best = 0;
	m = snap_find(&p->snaps[best], la);
	if (m) {
		s = &p->snaps[best];
	} else {
		for (i = p->nsnaps; i-- > 0;) {
			if (i == best)
				continue;
			m = snap_find(&p->snaps[i], la);
			if (m) {
				s = &p->snaps[i];
				break;
			}
		}
	}
	if (!m) {
		out->flags |= PMUCTX_SYM_UNKNOWN | PMUCTX_SYM_NO_MAP;
		return 1;
	}
	out->mod_start = m->start;
	out->mod_end = m->end;
	out->mod_pgoff = m->pgoff;
	out->offset = addr - m->start + m->pgoff;
	if (m->path[0] != '/') {
		out->module = m->path[0] ? m->path : "[anon]";
		out->offset = addr - m->start;
		out->flags |= PMUCTX_SYM_UNKNOWN;
		return 1;
	}
	out->module = m->path;
	mod = snap_dwfl(y, s) ? dwfl_addrmodule(s->dwfl, la) : NULL;
	if (!mod) {
		out->flags |= PMUCTX_SYM_UNKNOWN;
		return 1;
	}
	if (dwfl_module_info(mod, NULL, &mstart, &mend, NULL, NULL, NULL,
			     NULL)) {
		out->mod_start = mstart;
		out->mod_end = mend;
		out->mod_pgoff = 0;
	}
	elf = dwfl_module_getelf(mod, &bias);
	if (elf)
		out->offset = addr - bias;
	name = elf ? plt_name(y, elf, la - bias, &pstart) : NULL;
	if (name)
		off = la - (pstart + bias);
	else
		name = dwfl_module_addrinfo(mod, la, &off, &sym, NULL, NULL,
					    NULL);
	if (is_mapping_symbol(elf, name))
		name = NULL;
	if (y->flags & PMUCTX_SYMS_LINES) {
		Dwfl_Line *l = dwfl_module_getsrc(mod, la);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL,
						     NULL, NULL) : NULL;

		if (file) {
			out->file = file;
			out->line = line;
		}
	}
	if (!name || !*name) {
		out->flags |= PMUCTX_SYM_UNKNOWN;
		return 1;
	}
	out->name = name;
	out->start = la - off;
	out->offset = addr - out->start;
	return 0;
}

/* ---- API ------------------------------------------------------------------ */

PMUCTX_API int pmuctx_syms_new(struct pmuctx_syms **out,
			       const struct pmuctx_syms_opts *opts)
{
	struct pmuctx_syms *y;
	const char *ks;
	__u32 flags;

	if (!out)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_syms_new: out is NULL");
	*out = NULL;
	if (!OPTS_VALID(opts, pmuctx_syms_opts))
		return -EINVAL;
	flags = OPTS_GET(opts, flags, 0);
	if (flags & ~PMUCTX_SYMS_FLAGS_ALL)
		return pmuctx__err_set(NULL, PMUCTX_OP_OPTS, EINVAL,
				       "pmuctx_syms_new: unknown flags 0x%x",
				       flags & ~PMUCTX_SYMS_FLAGS_ALL);
	y = calloc(1, sizeof(*y));
	if (!y)
		return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_syms_new: out of memory");
	y->flags = flags;
	ks = OPTS_GET(opts, kallsyms, NULL);
	if (ks) {
		y->kallsyms_path = strdup(ks);
		if (!y->kallsyms_path) {
			free(y);
			return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
					       "pmuctx_syms_new: out of "
					       "memory");
		}
	}
	y->cbs.find_elf = syms_find_elf;
	y->cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	y->cbs.debuginfo_path = &y->debuginfo_path;
	*out = y;
	return 0;
}

PMUCTX_API void pmuctx_syms_free(struct pmuctx_syms *y)
{
	size_t i, j;

	if (!y)
		return;
	for (i = 0; i < y->nbuckets; i++) {
		struct proc *p = y->procs[i], *next;

		for (; p; p = next) {
			next = p->next;
			for (j = 0; j < p->nsnaps; j++) {
				if (p->snaps[j].dwfl)
					dwfl_end(p->snaps[j].dwfl);
				free(p->snaps[j].text);
				free(p->snaps[j].maps);
			}
			free(p->snaps);
			free(p);
		}
	}
	free(y->procs);
	for (i = 0; i < y->nplt_names; i++)
		free(y->plt_names[i]);
	free(y->plt_names);
	for (i = 0; i < y->nno_files; i++)
		free(y->no_files[i]);
	free(y->no_files);
	free(y->ksyms);
	free(y->kmods);
	free(y->kallsyms_path);
	arena_free(&y->strings);
	free(y);
}

PMUCTX_API int pmuctx_syms_add_maps(struct pmuctx_syms *y, pid_t pid,
				    __u64 time, const char *maps, size_t len)
{
	struct proc *p;
	struct snap *s, *v;
	size_t i;
	int err;

	if (!y || (!maps && len))
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_syms_add_maps: %s is NULL",
				       y ? "maps" : "the resolver");
	if (maps)
		len = strnlen(maps, len);
	p = get_proc(y, pid);
	if (!p)
		goto nomem;
	v = realloc(p->snaps, (p->nsnaps + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	p->snaps = v;
	/* keep them in time order (maps usually come in order) */
	for (i = p->nsnaps; i > 0 && v[i - 1].time > time; i--)
		;
	memmove(&v[i + 1], &v[i], (p->nsnaps - i) * sizeof(*v));
	s = &v[i];
	memset(s, 0, sizeof(*s));
	s->time = time;
	s->text = malloc(len + 1);
	if (!s->text)
		goto undo;
	if (len)
		memcpy(s->text, maps, len);
	s->text[len] = '\0';
	s->len = len;
	p->nsnaps++;
	err = parse_maps(y, s);
	if (err)
		return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_syms_add_maps: out of memory");
	return 0;
undo:
	memmove(&v[i], &v[i + 1], (p->nsnaps - i) * sizeof(*v));
nomem:
	return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
			       "pmuctx_syms_add_maps: out of memory");
}

PMUCTX_API int pmuctx_syms_lookup(struct pmuctx_syms *y, pid_t pid,
				  __u64 time, __u64 addr, __u32 flags,
				  struct pmuctx_sym *out)
{
	__u64 la;
	int ret;

	if (!y || !out)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_syms_lookup: %s is NULL",
				       y ? "out" : "the resolver");
	memset(out, 0, sizeof(*out));
	if (flags & ~(PMUCTX_SYM_KERNEL | PMUCTX_SYM_RETADDR))
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_syms_lookup: unknown flags "
				       "0x%x", flags);
	out->addr = addr;
	out->flags = flags & PMUCTX_SYM_KERNEL;
	la = (flags & PMUCTX_SYM_RETADDR) && addr ? addr - 1 : addr;
	if (flags & PMUCTX_SYM_KERNEL)
		ret = lookup_kernel(y, addr, la, out);
	else
		ret = lookup_user(y, pid, time, addr, la, out);
	if (ret < 0)
		return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_syms_lookup: out of memory");
	return ret;
}

PMUCTX_API int pmuctx_syms_no_file(struct pmuctx_syms *y, const char *path)
{
	char **v;

	if (!y || !path)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_syms_no_file: %s is NULL",
				       y ? "path" : "the resolver");
	v = realloc(y->no_files, (y->nno_files + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	y->no_files = v;
	v[y->nno_files] = strdup(path);
	if (!v[y->nno_files])
		goto nomem;
	y->nno_files++;
	return 0;
nomem:
	return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
			       "pmuctx_syms_no_file: out of memory");
}
