/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the misc device /dev/pmuctx (chrdev.c).
 */
#ifndef _PMUCTX_CHRDEV_H
#define _PMUCTX_CHRDEV_H

int pmuctx_chrdev_init(void);
void pmuctx_chrdev_exit(void);

#endif /* _PMUCTX_CHRDEV_H */
