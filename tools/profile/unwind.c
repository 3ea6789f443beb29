// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinding of USER_STACK records (`pmuctx record --call-graph
 * dwarf`) with elfutils' libdwfl: the record's registers start the
 * unwind, its copy of the stack answers reads of stack memory, and the
 * ELF files of the process's memory map (the text of a MAPS section,
 * reported with dwfl_linux_proc_maps_report()) give the CFI (.eh_frame,
 * .debug_frame) and the rest of memory (read-only segments of the files).
 *
 * One Dwfl per memory map, built the first time a record needs it and
 * kept (libdwfl caches the CFI of each module there); the per-record
 * state (registers, stack copy) is in struct unw, which the callbacks
 * get as their argument.
 *
 * The record comes from a file: every size is checked against the record
 * before it is used (unw_check()), and reads of the stack copy are
 * bounded by the bytes really copied (dyn_size).
 *
 * The vDSO is in no file: the recorder stores its image (the VDSO section)
 * and unw_dwfl() reports it as a module at the map's "[vdso]" (libdwfl's
 * maps reader skips that line), its ELF read from memory (unw_find_elf).
 * Without it a frame in clock_gettime() and friends ends the unwind.
 * Debian's arm64 vDSO has no CFI (no .eh_frame): its functions are
 * leaves that keep the return address in x30 and do not move sp, so
 * unw_vdso_leaf() steps out of one of those itself (x30, PAC bits
 * stripped) and libdwfl goes on from the caller.
 *
 * The registers are those of the record's abi, whatever machine runs the
 * report (unw_abis[]): libdwfl takes the architecture from the ELF files
 * of the map (an arm64 recording reported on x86-64 unwinds with its
 * aarch64 backend), and a record whose abi is not that machine's is not
 * unwound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "profile.h"

/*
 * A register set of USER_STACK records: regs[0, nr_dwarf) are DWARF
 * registers 0..nr_dwarf-1, regs[sp] the stack pointer, regs[pc] the
 * interrupted pc (a DWARF register on x86-64, not on arm64)
 */
struct unw_abi {
	__u16 abi, nr_regs;
	unsigned int nr_dwarf, sp, pc;
	unsigned int machine;	/* EM_* of the files it runs */
};

static const struct unw_abi unw_abis[] = {
	{ PMUCTX_REGS_X86_64, PMUCTX_REGS_X86_64_NR, PMUCTX_REGS_X86_64_NR,
	  PMUCTX_REGS_X86_64_SP, PMUCTX_REGS_X86_64_IP, EM_X86_64 },
	{ PMUCTX_REGS_ARM64, PMUCTX_REGS_ARM64_NR, PMUCTX_REGS_ARM64_PC,
	  PMUCTX_REGS_ARM64_SP, PMUCTX_REGS_ARM64_PC, EM_AARCH64 },
};

/* the most registers of unw_abis[] */
#define UNW_MAX_REGS	PMUCTX_REGS_ARM64_NR
_Static_assert(PMUCTX_REGS_X86_64_NR <= UNW_MAX_REGS, "UNW_MAX_REGS");

static const struct unw_abi *unw_abi_of(__u16 abi, __u16 nr_regs)
{
	size_t i;

	for (i = 0; i < sizeof(unw_abis) / sizeof(unw_abis[0]); i++)
		if (unw_abis[i].abi == abi && unw_abis[i].nr_regs == nr_regs)
			return &unw_abis[i];
	return NULL;
}

struct unw_map {
	const struct prof_maps *m;
	Dwfl *dwfl;		/* NULL: could not be built */
	unsigned int machine;	/* EM_* of its first ELF file, EM_NONE */
	__u64 vdso_lo, vdso_hi;	/* where it has the vDSO; 0, 0: unknown */
};

struct unw {
	Dwfl_Callbacks cbs;
	char *debuginfo_path;
	struct unw_map *maps;
	size_t nr_maps, cap_maps;
	const char *const *no_files;	/* unw_no_files() */
	size_t nr_no_files;
	struct unw_vdso {
		const void *image;	/* unw_vdso(); NULL: none */
		size_t len;
		bool no_cfi;		/* no .eh_frame, no .debug_frame */
	} vdso;
	/* the record being unwound */
	__s32 tid;
	const struct unw_abi *abi;
	Dwarf_Word regs[UNW_MAX_REGS];
	__u64 sp;
	const unsigned char *stack;
	__u32 dyn_size;
	__u64 *ips;
	unsigned int n, max;
	/* statistics */
	struct unw_stats st;
};

int unw_check(const void *rec, size_t len)
{
	struct pmuctx_rec_user_stack u;
	size_t need;

	if (len < sizeof(u))
		return -EINVAL;
	memcpy(&u, rec, sizeof(u));
	if (u.hdr.type != PMUCTX_REC_USER_STACK || u.hdr.size > len ||
	    u.hdr.size < sizeof(u))
		return -EINVAL;
	if (!unw_abi_of(u.abi, u.nr_regs))
		return -EOPNOTSUPP;
	need = sizeof(u) + (size_t)u.nr_regs * 8 + u.size;
	if (u.size % 8 || u.dyn_size > u.size || need > u.hdr.size)
		return -EINVAL;
	return 0;
}

/*
 * libdwfl's find_elf for the modules of a recorded memory map: open the
 * file the map names, if it is a regular file, and nothing else.  Not
 * dwfl_linux_proc_find_elf(): for a module named "... (deleted)" it reads
 * /proc/PID/mem with the recorded PID, on the machine that runs the
 * report, where that PID is some other process (or, from a crafted
 * file, any process the analyst can read).  A deleted file's module has
 * no CFI here and its frames end the unwind, as do those of a file
 * unw_no_files() names (marked by mark_no_file()).  The vDSO's module
 * (its userdata the struct unw_vdso) gets the recorded image.
 */
static char no_file_mark;

#define UNW_VDSO_NAME	"[vdso]"

static int unw_find_elf(Dwfl_Module *mod, void **userdata,
			const char *modname, Dwarf_Addr base,
			char **file_name, Elf **elfp)
{
	struct stat st;
	int fd;

	(void)mod;
	(void)base;
	*elfp = NULL;
	if (*userdata && *userdata != &no_file_mark && modname &&
	    !strcmp(modname, UNW_VDSO_NAME)) {
		const struct unw_vdso *v = *userdata;

		/* libelf reads the image in place; dwfl_end() ends it */
		*elfp = elf_memory((char *)v->image, v->len);
		return -1;
	}
	if (*userdata == &no_file_mark || !modname || modname[0] != '/')
		return -1;
	fd = open(modname, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*file_name = strdup(modname);
	if (!*file_name) {
		close(fd);
		return -1;
	}
	return fd;
}

int unw_new(struct unw **out)
{
	struct unw *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->cbs.find_elf = unw_find_elf;
	u->cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	/* no module is relocatable (ET_REL): refused, should one be */
	u->cbs.section_address = dwfl_offline_section_address;
	u->cbs.debuginfo_path = &u->debuginfo_path;
	*out = u;
	return 0;
}

int unw_no_files(struct unw *u, const char *const *paths, size_t n)
{
	u->no_files = paths;
	u->nr_no_files = n;
	return 0;
}

/* whether ELF image @e has a section named .eh_frame or .debug_frame */
static bool unw_has_cfi(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if (n && (!strcmp(n, ".eh_frame") || !strcmp(n, ".debug_frame")))
			return true;
	}
	return false;
}

void unw_vdso(struct unw *u, const void *image, size_t len)
{
	Elf *e;

	u->vdso.image = len ? image : NULL;
	u->vdso.len = len;
	u->vdso.no_cfi = false;
	if (!len)
		return;
	elf_version(EV_CURRENT);
	e = elf_memory((char *)image, len);
	if (e) {
		GElf_Ehdr eh;
		size_t i;
		bool ok = false;

		/*
		 * A file is hostile input: only a 64-bit shared object of a
		 * machine we unwind (an ET_REL one would make libdwfl
		 * relocate it, through a callback we do not have)
		 */
		if (elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh) &&
		    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_type == ET_DYN)
			for (i = 0; i < sizeof(unw_abis) / sizeof(unw_abis[0]);
			     i++)
				ok |= eh.e_machine == unw_abis[i].machine;
		if (ok)
			u->vdso.no_cfi = !unw_has_cfi(e);
		elf_end(e);
		if (!ok) {
			u->vdso.image = NULL;
			u->vdso.len = 0;
		}
	} else {
		u->vdso.image = NULL;
		u->vdso.len = 0;
	}
}

/* ---- the arm64 vDSO without CFI ---------------------------------------- */

/*
 * Whether aarch64 instruction @insn may move sp or save, load or clobber
 * the link register: an add/sub (immediate or extended register) or a
 * logical immediate into sp, a load/store pair or register with
 * write-back to its base (sp or any: conservative), a store or load of
 * x30, a call.  A function with none keeps its return address in x30 and
 * its caller's sp.  (Not every form: a leaf of straight-line code is
 * what the vDSO has.)
 */
static bool a64_frame_insn(__u32 insn)
{
	/* ADD/SUB (immediate), 32 or 64 bit, S = 0, Rd = sp */
	if ((insn & 0x1f800000) == 0x11000000 && !(insn & (1U << 29)) &&
	    (insn & 0x1f) == 31)
		return true;
	/* load/store pair, pre- or post-index (write-back) */
	if ((insn & 0x3a800000) == 0x28800000)
		return true;
	/* load/store pair, offset: a store of x30 (Rt or Rt2) */
	if ((insn & 0x3bc00000) == 0x29000000 &&
	    ((insn & 0x1f) == 30 || ((insn >> 10) & 0x1f) == 30))
		return true;
	/* load/store register (immediate), pre- or post-index */
	if ((insn & 0x3b200400) == 0x38000400)
		return true;
	/* store register (unsigned offset) of x30 */
	if ((insn & 0x3fc00000) == 0x39000000 && (insn & 0x1f) == 30)
		return true;
	/* load register (unsigned offset) or pair (offset) into x30 */
	if ((insn & 0x3fc00000) == 0x39400000 && (insn & 0x1f) == 30)
		return true;
	if ((insn & 0x3bc00000) == 0x29400000 &&
	    ((insn & 0x1f) == 30 || ((insn >> 10) & 0x1f) == 30))
		return true;
	/* ADD/SUB (extended register) into sp, logical (immediate) into sp */
	if ((insn & 0x1f200000) == 0x0b200000 && !(insn & (1U << 29)) &&
	    (insn & 0x1f) == 31)
		return true;
	if ((insn & 0x1f800000) == 0x12000000 &&
	    ((insn >> 29) & 3) != 3 && (insn & 0x1f) == 31)
		return true;
	/* a call: BL, BLR (x30 clobbered, so saved somewhere first) */
	if ((insn & 0xfc000000) == 0x94000000 ||
	    (insn & 0xfffffc1f) == 0xd63f0000)
		return true;
	return false;
}

/*
 * The vDSO function around @pc: [*start, *end) as offsets in the image,
 * from the symbols libdwfl read of the vDSO's module.  False when no
 * function symbol of the vDSO covers it.
 */
static bool unw_vdso_func(const struct unw_map *um, __u64 pc, __u64 *start,
			  __u64 *end)
{
	Dwfl_Module *mod = dwfl_addrmodule(um->dwfl, pc);
	const char *name;
	GElf_Sym sym;

	if (!mod)
		return false;
	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!name || strcmp(name, UNW_VDSO_NAME) ||
	    !dwfl_module_addrsym(mod, pc, &sym, NULL) ||
	    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
	    sym.st_value < um->vdso_lo || pc - sym.st_value >= sym.st_size)
		return false;
	*start = sym.st_value - um->vdso_lo;
	*end = *start + sym.st_size;
	return true;
}

/*
 * A record of an arm64 task interrupted in the vDSO, which has no CFI:
 * when the function around the pc is a leaf that has not moved sp nor
 * saved x30 up to the pc (every function of Debian's arm64 vDSO, whose
 * system-call fallback is inline), its caller's pc is x30 (signed with
 * paciasp: the PAC bits above the 48-bit user address space stripped),
 * its sp and callee-saved registers the same.  Writes the vDSO pc to
 * @ips[0] and makes u->regs the caller's; false (nothing done) otherwise.
 */
static bool unw_vdso_leaf(struct unw *u, const struct unw_map *um,
			  __u64 *ips)
{
	const __u64 va_mask = (1ULL << 48) - 1;
	__u64 pc, off, start, end, a, lr;
	const unsigned char *code = u->vdso.image;

	if (u->abi->abi != PMUCTX_REGS_ARM64 || !u->vdso.image ||
	    !u->vdso.no_cfi || !um->vdso_hi)
		return false;
	pc = u->regs[u->abi->pc];
	if (pc < um->vdso_lo || pc >= um->vdso_hi)
		return false;
	off = pc - um->vdso_lo;
	if (off >= u->vdso.len || !unw_vdso_func(um, pc, &start, &end) ||
	    end > u->vdso.len || start % 4)
		return false;
	/* the whole function: a block placed after the pc may run first */
	for (a = start; a < end && a + 4 <= u->vdso.len; a += 4) {
		__u32 insn;

		memcpy(&insn, code + a, sizeof(insn));
		if (a64_frame_insn(insn))
			return false;
	}
	lr = u->regs[30] & va_mask;
	if (!lr || (lr >= um->vdso_lo && lr < um->vdso_hi) ||
	    !dwfl_addrmodule(um->dwfl, lr))
		return false;
	ips[0] = pc;
	u->regs[u->abi->pc] = lr;
	u->regs[30] = lr;	/* as it is after the return: unsigned */
	return true;
}

bool unw_map_vdso(const char *text, size_t len, __u64 *lo, __u64 *hi)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p), k = sizeof(UNW_VDSO_NAME) - 1;
		unsigned long long a, b;
		char line[64];

		/* "START-END perms offset dev inode      [vdso]" */
		if (n > k && !memcmp(le - k, UNW_VDSO_NAME, k) &&
		    (le[-k - 1] == ' ' || le[-k - 1] == '\t')) {
			size_t c = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

			unsigned long long ino = 1;

			memcpy(line, p, c);
			line[c] = '\0';
			/* a special mapping (inode 0), not a file so named */
			if (sscanf(line, "%llx-%llx %*s %*s %*s %llu", &a, &b,
				   &ino) == 3 && !ino && a < b) {
				*lo = a;
				*hi = b;
				return true;
			}
		}
		p = le + 1;
	}
	return false;
}

/*
 * The vDSO as a module of @dwfl at [lo, hi), between dwfl_report_begin()
 * and dwfl_report_end(); its ELF comes from unw_find_elf().  Nothing when
 * no image was recorded.
 */
static void unw_report_vdso(struct unw *u, Dwfl *dwfl, __u64 lo, __u64 hi)
{
	Dwfl_Module *mod;
	void **ud;

	if (!u->vdso.image || !hi)
		return;
	mod = dwfl_report_module(dwfl, UNW_VDSO_NAME, lo, hi);
	if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL,
				    NULL))
		*ud = &u->vdso;
}

static int mark_no_file(Dwfl_Module *mod, void **userdata, const char *name,
			Dwarf_Addr start, void *arg)
{
	const struct unw *u = arg;
	size_t i;

	(void)mod;
	(void)start;
	for (i = 0; name && i < u->nr_no_files; i++)
		if (!strcmp(name, u->no_files[i]))
			*userdata = &no_file_mark;
	return DWARF_CB_OK;
}

void unw_free(struct unw *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_maps; i++)
		if (u->maps[i].dwfl)
			dwfl_end(u->maps[i].dwfl);
	free(u->maps);
	free(u);
}

void unw_get_stats(const struct unw *u, struct unw_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (u)
		*st = u->st;
}

/* ---- libdwfl's callbacks -------------------------------------------------- */

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unw *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->tid;
}

/* a word of a file's loaded segments (text, read-only data) */
static bool unw_read_file(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias, a;
	GElf_Phdr ph;
	size_t i, n;
	Elf_Data *d;
	Elf *elf;

	if (!mod)
		return false;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || elf_getphdrnum(elf, &n))
		return false;
	a = addr - bias;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (a < ph.p_vaddr || a - ph.p_vaddr > ph.p_filesz ||
		    ph.p_filesz - (a - ph.p_vaddr) < sizeof(*result))
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset +
							 (a - ph.p_vaddr)),
					 sizeof(*result), ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size < sizeof(*result))
			return false;
		memcpy(result, d->d_buf, sizeof(*result));
		return true;
	}
	return false;
}

static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			    void *arg)
{
	struct unw *u = arg;

	/* the stack copy: only the bytes the kernel could copy */
	if (addr >= u->sp && addr - u->sp <= u->dyn_size &&
	    u->dyn_size - (addr - u->sp) >= sizeof(*result)) {
		memcpy(result, u->stack + (addr - u->sp), sizeof(*result));
		return true;
	}
	return unw_read_file(dwfl, addr, result);
}

static bool unw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unw *u = arg;

	if (!dwfl_thread_state_registers(thread, 0, u->abi->nr_dwarf, u->regs))
		return false;
	dwfl_thread_state_register_pc(thread, u->regs[u->abi->pc]);
	return true;
}

static const Dwfl_Thread_Callbacks unw_thread_cbs = {
	.next_thread = unw_next_thread,
	.memory_read = unw_memory_read,
	.set_initial_registers = unw_set_initial_registers,
};

static int unw_frame(Dwfl_Frame *f, void *arg)
{
	struct unw *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(f, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	/*
	 * The pcs as the kernel's callchains hold them: the interrupted
	 * address, then return addresses (the symbolizer looks up ret - 1)
	 */
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* ---- unwinding ------------------------------------------------------------ */

/* the ELF machine of the first module with a file: what libdwfl unwinds */
static int unw_machine(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr start, void *arg)
{
	unsigned int *machine = arg;
	Dwarf_Addr bias;
	GElf_Ehdr eh;
	Elf *elf;

	(void)userdata;
	(void)start;
	/* the files' machine: the recorded vDSO is not one of them */
	if (name && !strcmp(name, UNW_VDSO_NAME))
		return DWARF_CB_OK;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || !gelf_getehdr(elf, &eh))
		return DWARF_CB_OK;
	*machine = eh.e_machine;
	return DWARF_CB_ABORT;
}

static const struct unw_map *unw_dwfl(struct unw *u,
				      const struct prof_maps *m, __s32 pid,
				      __u64 vdso_lo, __u64 vdso_hi)
{
	struct unw_map *um;
	Dwfl *dwfl;
	FILE *f;
	size_t i;

	for (i = u->nr_maps; i-- > 0;)
		if (u->maps[i].m == m)
			return &u->maps[i];
	if (u->nr_maps == u->cap_maps) {
		size_t cap = u->cap_maps ? 2 * u->cap_maps : 16;

		um = realloc(u->maps, cap * sizeof(*um));
		if (!um)
			return NULL;
		u->maps = um;
		u->cap_maps = cap;
	}
	um = &u->maps[u->nr_maps++];
	um->m = m;
	um->dwfl = NULL;
	um->machine = EM_NONE;
	um->vdso_lo = um->vdso_hi = 0;
	dwfl = dwfl_begin(&u->cbs);
	if (!dwfl)
		return um;
	f = fmemopen((void *)m->text, m->len, "r");
	if (!f)
		goto err_end;
	dwfl_report_begin(dwfl);
	/* files that cannot be opened are skipped: their frames end it */
	dwfl_linux_proc_maps_report(dwfl, f);
	fclose(f);
	/* the map's own [vdso] line first, else where another map had it */
	unw_map_vdso(m->text, m->len, &vdso_lo, &vdso_hi);
	unw_report_vdso(u, dwfl, vdso_lo, vdso_hi);
	um->vdso_lo = vdso_lo;
	um->vdso_hi = vdso_hi;
	if (dwfl_report_end(dwfl, NULL, NULL))
		goto err_end;
	if (u->nr_no_files)
		dwfl_getmodules(dwfl, mark_no_file, u, 0);
	if (!dwfl_attach_state(dwfl, NULL, pid, &unw_thread_cbs, u))
		goto err_end;
	dwfl_getmodules(dwfl, unw_machine, &um->machine, 0);
	um->dwfl = dwfl;
	return um;
err_end:
	dwfl_end(dwfl);
	return um;
}

static __u64 unw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int unw_unwind(struct unw *u, const struct prof_maps *m, __s32 pid,
	       __u64 vdso_lo, __u64 vdso_hi, const void *rec, size_t len,
	       __u64 *ips, unsigned int max)
{
	struct pmuctx_rec_user_stack r;
	const unsigned char *p = rec;
	const struct unw_map *um;
	__u64 t0 = unw_now_ns();
	int e;

	e = unw_check(rec, len);
	if (e) {
		u->st.bad++;
		return e;
	}
	memcpy(&r, rec, sizeof(r));
	u->st.records++;
	u->st.bytes += r.hdr.size;
	if (!max)
		return 0;
	u->abi = unw_abi_of(r.abi, r.nr_regs);
	um = m ? unw_dwfl(u, m, pid, vdso_lo, vdso_hi) : NULL;
	/* registers of another architecture than the files': not unwound */
	if (!um || !um->dwfl || um->machine != u->abi->machine) {
		u->st.no_map++;
		return 0;
	}
	memcpy(u->regs, p + sizeof(r), (size_t)r.nr_regs * 8);
	u->tid = r.c.tid;
	u->sp = u->regs[u->abi->sp];
	u->stack = p + sizeof(r) + (size_t)r.nr_regs * 8;
	u->dyn_size = r.dyn_size;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	/* a frame of the arm64 vDSO, which has no CFI: stepped out of here */
	if (max > 1 && unw_vdso_leaf(u, um, ips)) {
		u->ips = ips + 1;
		u->max = max - 1;
	}
	dwfl_getthread_frames(um->dwfl, u->tid, unw_frame, u);
	if (u->ips != ips) {
		u->n++;
		u->ips = ips;
		u->max = max;
	}
	u->st.unwound++;
	u->st.frames += u->n;
	u->st.ns += unw_now_ns() - t0;
	return (int)u->n;
}
