// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids of mapped files (buildid.h): the GNU build-id note of an ELF
 * file, read with libelf and libdw's dwelf_elf_gnu_build_id() (the note
 * of the program headers, else of the sections).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "buildid.h"
#include "pmfile.h"

int buildid_read(const char *path, unsigned char id[BUILDID_MAX])
{
	const void *p = NULL;
	struct stat st;
	ssize_t n = 0;
	Elf *elf;
	int fd;

	/* O_NONBLOCK: a FIFO or device a map names must not hang us */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > 0 && n <= BUILDID_MAX && p)
		memcpy(id, p, (size_t)n);
	else
		n = 0;
	if (elf)
		elf_end(elf);
	close(fd);
	return (int)n;
}

char *buildid_hex(const unsigned char *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (len > BUILDID_MAX)
		len = BUILDID_MAX;
	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = '\0';
	return buf;
}

int buildid_check(const struct pmf_reader *r, const char *prefix, FILE *msgs,
		  const char ***out, size_t *n)
{
	char was[2 * BUILDID_MAX + 1], now[2 * BUILDID_MAX + 1];
	unsigned char id[BUILDID_MAX];
	const char **v = NULL;
	size_t i, j, nv = 0;
	int len;

	*out = NULL;
	*n = 0;
	for (i = 0; i < r->nr_buildids; i++) {
		const struct pmf_bid *b = &r->buildids[i];
		const char **t;

		/* a path recorded twice: its first build-id */
		for (j = 0; j < i; j++)
			if (!strcmp(r->buildids[j].path, b->path))
				break;
		if (j < i)
			continue;
		len = buildid_read(b->path, id);
		if (len == (int)b->id_len && !memcmp(id, b->id, b->id_len))
			continue;
		buildid_hex(b->id, b->id_len, was);
		if (len > 0)
			fprintf(msgs, "%s%s changed since the recording "
				"(build-id %s recorded, %s now): its samples "
				"are shown as addresses\n", prefix, b->path,
				was, buildid_hex(id, (size_t)len, now));
		else if (len == 0)
			fprintf(msgs, "%s%s changed since the recording "
				"(build-id %s recorded, none now): its samples "
				"are shown as addresses\n", prefix, b->path,
				was);
		else
			fprintf(msgs, "%s%s is gone since the recording "
				"(build-id %s recorded: %s): its samples are "
				"shown as addresses\n", prefix, b->path, was,
				strerror(-len));
		t = realloc(v, (nv + 1) * sizeof(*v));
		if (!t) {
			free(v);
			return -ENOMEM;
		}
		v = t;
		v[nv++] = b->path;
	}
	*out = v;
	*n = nv;
	return 0;
}
