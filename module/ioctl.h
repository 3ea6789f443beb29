/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the ioctls of /dev/pmuctx (ioctl.c).
 */
#ifndef _PMUCTX_IOCTL_H
#define _PMUCTX_IOCTL_H

struct file;

long pmuctx_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _PMUCTX_IOCTL_H */
