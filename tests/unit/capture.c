// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's commands run in-process with their output captured, for the
 * CLI tests (test_cli.c, test_ring_file.c).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../../tools/builtin.h"
#include "test.h"

char *t_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	m = open_memstream(&buf, &len);
	if (f) {
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
		fclose(f);
	}
	fclose(m);
	return buf;
}

int t_run_cmd(const struct cmd *cmd, const char *dir, char **out, char **err,
	      va_list ap)
{
	char so_path[128], se_path[128];
	char *argv[64];
	int argc = 0, so, se, fo, fe, ret;

	argv[argc++] = (char *)cmd->name;
	while (argc < 63 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	argv[argc] = NULL;

	snprintf(so_path, sizeof(so_path), "%s/stdout", dir);
	snprintf(se_path, sizeof(se_path), "%s/stderr", dir);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fo = open(so_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fe = open(se_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	ret = cmd->run(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	free(*out);
	free(*err);
	*out = t_slurp(so_path);
	*err = t_slurp(se_path);
	return ret;
}

void t_sysfs_put(const char *root, const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s",
		 root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}
