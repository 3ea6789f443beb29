// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the misc device /dev/pmuctx and its file operations.
 *
 * Every open file is a potential session (struct pmuctx_session in
 * file->private_data); it becomes one with PMUCTX_IOC_SESSION_CREATE.
 * .owner keeps the module pinned while any file is open, so rmmod is
 * refused, never racing with a live session.
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/compat.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "chrdev.h"
#include "ioctl.h"
#include "records.h"
#include "ring.h"
#include "session.h"

static int pmuctx_open(struct inode *inode, struct file *file)
{
	struct pmuctx_session *s;

	s = pmuctx_session_alloc();
	if (!s)
		return -ENOMEM;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int pmuctx_release(struct inode *inode, struct file *file)
{
	pmuctx_session_release(file->private_data);
	return 0;
}

#ifdef CONFIG_COMPAT
/* Every ioctl argument is a pointer to a size-versioned struct laid out the
 * same for 32- and 64-bit callers (only fixed-width types, u64 pointers).
 */
static long pmuctx_compat_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	return pmuctx_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif

/* mmap, poll, read and write work on a session's ring buffers. */
static int pmuctx_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pmuctx_session *s = file->private_data;

	/* pairs with the store-release that makes the session live */
	if (smp_load_acquire(&s->state) != PMUCTX_SS_LIVE)
		return -ENODEV;
	return pmuctx_ring_mmap(&s->ring, vma);
}

static __poll_t pmuctx_poll(struct file *file, struct poll_table_struct *pt)
{
	struct pmuctx_session *s = file->private_data;

	if (READ_ONCE(s->state) != PMUCTX_SS_LIVE)
		return EPOLLERR;
	return pmuctx_ring_poll(&s->ring, file, pt);
}

static ssize_t pmuctx_read(struct file *file, char __user *buf, size_t len,
			   loff_t *ppos)
{
	struct pmuctx_session *s = file->private_data;

	if (READ_ONCE(s->state) != PMUCTX_SS_LIVE)
		return -EINVAL;
	return pmuctx_ring_read(&s->ring, file, buf, len);
}

/*
 * write(2) payloads up to this size are copied to the stack rather than
 * to a kmalloc()ed buffer.  The copy from user space cannot go straight
 * into the ring: it may fault and sleep, and a reserved record must be
 * committed with preemption off.
 */
#define PMUCTX_WRITE_ONSTACK	256

static ssize_t pmuctx_write(struct file *file, const char __user *buf,
			    size_t len, loff_t *ppos)
{
	struct pmuctx_session *s = file->private_data;
	u64 onstack[PMUCTX_WRITE_ONSTACK / sizeof(u64)];
	void *kbuf = onstack;
	int ret;

	if (READ_ONCE(s->state) != PMUCTX_SS_LIVE || !s->ring.area)
		return -EINVAL;
	if (!len || len > PMUCTX_USER_MAX)
		return -EINVAL;
	if (len <= sizeof(onstack)) {
		if (copy_from_user(onstack, buf, len))
			return -EFAULT;
	} else {
		kbuf = memdup_user(buf, len);
		if (IS_ERR(kbuf))
			return PTR_ERR(kbuf);
	}
	ret = pmuctx_rec_user(s, kbuf, len);
	if (kbuf != onstack)
		kfree(kbuf);
	return ret ? ret : len;
}

static const struct file_operations pmuctx_fops = {
	.owner		= THIS_MODULE,
	.open		= pmuctx_open,
	.release	= pmuctx_release,
	.unlocked_ioctl	= pmuctx_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= pmuctx_compat_ioctl,
#endif
	.mmap		= pmuctx_mmap,
	.poll		= pmuctx_poll,
	.read		= pmuctx_read,
	.write		= pmuctx_write,
};

static struct miscdevice pmuctx_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= PMUCTX_DEVICE_NAME,
	.fops	= &pmuctx_fops,
	.mode	= 0660,
};

int pmuctx_chrdev_init(void)
{
	int ret;

	ret = misc_register(&pmuctx_miscdev);
	if (ret)
		pr_err("misc_register failed: %d\n", ret);
	return ret;
}

void pmuctx_chrdev_exit(void)
{
	misc_deregister(&pmuctx_miscdev);
}
