// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpmuctx: joining SAMPLE records with their deferred USER_CALLCHAIN
 * records by (pid, tid, cookie).
 *
 * Two tables keyed by (pid, tid, cookie):
 *  - waiters: the deferred samples whose user record has not come yet,
 *    each key with its samples in arrival order.  Every waiting sample is
 *    also on one global list in arrival order, so the oldest can be given
 *    up when max_pending is reached: it is the first of its key's list.
 *  - users: the user records seen, for samples that come after theirs
 *    (another CPU read later, a later snapshot window) and to recognise a
 *    record fed twice.  At most max_user, the oldest forgotten first.
 * Finished callchains go to a ready queue that pmuctx_stitch_next()
 * empties.  Everything is bounded but the ready queue, which the caller
 * drains after each pmuctx_stitch_add().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define DEFAULT_MAX_PENDING	65536
#define DEFAULT_MAX_USER	16384

struct st_key {
	__s32 pid;
	__s32 tid;
	__u64 cookie;
};

/* intrusive chained hash table */
struct st_hnode {
	struct st_hnode *next;
	__u64 hash;
	struct st_key key;
};

struct st_table {
	struct st_hnode **b;
	size_t nb;		/* buckets, a power of two */
	size_t n;		/* entries */
};

struct st_sample {
	struct st_sample *next;		/* key list, or the ready queue */
	struct st_sample *fprev, *fnext;	/* global pending list */
	struct st_waiter *w;		/* pending: its key */
	__u32 flags;			/* PMUCTX_CHAIN_* once decided */
	__u32 nr_user;
	__u64 *ips;			/* ready: kernel + user frames */
	__u32 user_cpu;
	__u64 user_time;
	size_t size;
	__u64 rec[];			/* the SAMPLE record */
};

struct st_waiter {
	struct st_hnode h;
	struct st_sample *head, *tail;
};

struct st_user {
	struct st_hnode h;
	struct st_user *fprev, *fnext;	/* insertion order */
	__u64 uses;
	__u64 time;
	__u32 cpu;
	__u32 nr;
	__u16 misc;
	__u64 ips[];
};

struct pmuctx_stitch {
	size_t max_pending;
	size_t max_user;
	struct st_table waiters;
	struct st_table users;
	struct st_sample *pfirst, *plast;	/* pending, oldest first */
	struct st_user *ufirst, *ulast;		/* users, oldest first */
	struct st_sample *rfirst, *rlast;	/* ready queue */
	size_t nr_ready;
	struct st_sample *cur;			/* handed out by next() */
	struct pmuctx_stitch_stats st;
};

/* ---- hash table ------------------------------------------------------ */

static __u64 key_hash(const struct st_key *k)
{
	return pmuctx__mix64(((__u64)(__u32)k->pid << 32 | (__u32)k->tid) ^
			     pmuctx__mix64(k->cookie));
}

static bool key_eq(const struct st_key *a, const struct st_key *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->cookie == b->cookie;
}

static struct st_hnode *tab_find(const struct st_table *t,
				 const struct st_key *k, __u64 hash)
{
	struct st_hnode *n;

	if (!t->nb)
		return NULL;
	for (n = t->b[hash & (t->nb - 1)]; n; n = n->next)
		if (n->hash == hash && key_eq(&n->key, k))
			return n;
	return NULL;
}

static int tab_grow(struct st_table *t)
{
	size_t nb = t->nb ? t->nb * 2 : 64, i;
	struct st_hnode **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < t->nb; i++) {
		struct st_hnode *n = t->b[i], *next;

		for (; n; n = next) {
			next = n->next;
			n->next = b[n->hash & (nb - 1)];
			b[n->hash & (nb - 1)] = n;
		}
	}
	free(t->b);
	t->b = b;
	t->nb = nb;
	return 0;
}

/* insert @n (hash and key set); the table must not hold the key */
static int tab_insert(struct st_table *t, struct st_hnode *n)
{
	struct st_hnode **slot;

	if (t->n >= t->nb && tab_grow(t))
		return -ENOMEM;
	slot = &t->b[n->hash & (t->nb - 1)];
	n->next = *slot;
	*slot = n;
	t->n++;
	return 0;
}

static void tab_remove(struct st_table *t, struct st_hnode *n)
{
	struct st_hnode **pp = &t->b[n->hash & (t->nb - 1)];

	while (*pp && *pp != n)
		pp = &(*pp)->next;
	if (*pp) {
		*pp = n->next;
		t->n--;
	}
}

/* ---- helpers --------------------------------------------------------- */

static const struct pmuctx_rec_sample *rec_of(const struct st_sample *x)
{
	return (const struct pmuctx_rec_sample *)x->rec;
}

static void ready_push(struct pmuctx_stitch *s, struct st_sample *x)
{
	x->next = NULL;
	if (s->rlast)
		s->rlast->next = x;
	else
		s->rfirst = x;
	s->rlast = x;
	s->nr_ready++;
}

/*
 * Make @x ready with @u's frames as its user part (or, without @u, the
 * sample's own user frames, none for a deferred one).  On -ENOMEM the
 * sample is freed and counted as unresolved.
 */
static int finish(struct pmuctx_stitch *s, struct st_sample *x,
		  const struct st_user *u)
{
	const struct pmuctx_rec_sample *r = rec_of(x);
	__u32 nk = r->nr_kernel, nu;

	if (u)
		nu = u->nr;
	else if (x->flags & PMUCTX_CHAIN_DEFERRED)
		nu = 0;
	else
		nu = r->nr_user;
	x->ips = malloc(((size_t)nk + nu + 1) * sizeof(__u64));
	if (!x->ips) {
		free(x);
		return -ENOMEM;
	}
	memcpy(x->ips, r->ips, (size_t)nk * sizeof(__u64));
	if (u) {
		memcpy(x->ips + nk, u->ips, (size_t)nu * sizeof(__u64));
		x->flags |= PMUCTX_CHAIN_STITCHED;
		if (u->misc & PMUCTX_SAMPLE_M_USER_TRUNC)
			x->flags |= PMUCTX_CHAIN_USER_TRUNC;
		x->user_cpu = u->cpu;
		x->user_time = u->time;
	} else {
		memcpy(x->ips + nk, r->ips + nk, (size_t)nu * sizeof(__u64));
		if (r->hdr.misc & PMUCTX_SAMPLE_M_USER_TRUNC)
			x->flags |= PMUCTX_CHAIN_USER_TRUNC;
	}
	x->nr_user = nu;
	ready_push(s, x);
	return 0;
}

static void use_user(struct pmuctx_stitch *s, struct st_user *u)
{
	if (!u->uses)
		s->st.user_unused--;
	if (++u->uses == 2)
		s->st.user_shared++;
}

static void pending_unlink(struct pmuctx_stitch *s, struct st_sample *x)
{
	if (x->fprev)
		x->fprev->fnext = x->fnext;
	else
		s->pfirst = x->fnext;
	if (x->fnext)
		x->fnext->fprev = x->fprev;
	else
		s->plast = x->fprev;
	x->fprev = x->fnext = NULL;
	s->st.pending--;
}

/* resolve (with @u) or give up (without) every sample of @w; frees @w */
static void release_waiter(struct pmuctx_stitch *s, struct st_waiter *w,
			   struct st_user *u)
{
	struct st_sample *x, *next;

	tab_remove(&s->waiters, &w->h);
	for (x = w->head; x; x = next) {
		next = x->next;
		pending_unlink(s, x);
		x->w = NULL;
		if (u) {
			use_user(s, u);
			s->st.stitched++;
		} else {
			x->flags |= PMUCTX_CHAIN_UNRESOLVED;
			s->st.unresolved++;
		}
		if (finish(s, x, u) && u) {
			s->st.stitched--;
			s->st.unresolved++;
		}
	}
	free(w);
}

/* give up the oldest waiting sample */
static void evict_oldest(struct pmuctx_stitch *s)
{
	struct st_sample *x = s->pfirst;
	struct st_waiter *w;

	if (!x)
		return;
	w = x->w;
	pending_unlink(s, x);
	/* the oldest of all is the first of its key's list */
	w->head = x->next;
	if (!w->head) {
		w->tail = NULL;
		tab_remove(&s->waiters, &w->h);
		free(w);
	}
	x->w = NULL;
	x->flags |= PMUCTX_CHAIN_UNRESOLVED | PMUCTX_CHAIN_EVICTED;
	s->st.unresolved++;
	s->st.evicted++;
	finish(s, x, NULL);
}

static void forget_oldest_user(struct pmuctx_stitch *s)
{
	struct st_user *u = s->ufirst;

	if (!u)
		return;
	s->ufirst = u->fnext;
	if (s->ufirst)
		s->ufirst->fprev = NULL;
	else
		s->ulast = NULL;
	tab_remove(&s->users, &u->h);
	s->st.user_forgotten++;
	free(u);
}

/* ---- records --------------------------------------------------------- */

static int add_sample(struct pmuctx_stitch *s, const void *rec, size_t size)
{
	const struct pmuctx_rec_sample *r = rec;
	struct st_sample *x;
	struct st_waiter *w;
	struct st_user *u;
	struct st_key k;
	__u64 h;

	x = calloc(1, sizeof(*x) + size);
	if (!x)
		return -ENOMEM;
	memcpy(x->rec, rec, size);
	x->size = size;
	s->st.samples++;
	if (!(r->hdr.misc & PMUCTX_SAMPLE_M_USER_DEFERRED) || !r->cookie) {
		s->st.immediate++;
		return finish(s, x, NULL);
	}
	s->st.deferred++;
	x->flags = PMUCTX_CHAIN_DEFERRED;
	memset(&k, 0, sizeof(k));
	k.pid = r->c.pid;
	k.tid = r->c.tid;
	k.cookie = r->cookie;
	h = key_hash(&k);

	u = (struct st_user *)tab_find(&s->users, &k, h);
	if (u) {			/* its user record came first */
		use_user(s, u);
		s->st.stitched++;
		s->st.late++;
		if (finish(s, x, u)) {
			s->st.stitched--;
			s->st.late--;
			s->st.unresolved++;
			return -ENOMEM;
		}
		return 0;
	}

	w = (struct st_waiter *)tab_find(&s->waiters, &k, h);
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w) {
			free(x);
			s->st.samples--;
			s->st.deferred--;
			return -ENOMEM;
		}
		w->h.hash = h;
		w->h.key = k;
		if (tab_insert(&s->waiters, &w->h)) {
			free(w);
			free(x);
			s->st.samples--;
			s->st.deferred--;
			return -ENOMEM;
		}
	}
	x->w = w;
	if (w->tail)
		w->tail->next = x;
	else
		w->head = x;
	w->tail = x;
	x->fprev = s->plast;
	if (s->plast)
		s->plast->fnext = x;
	else
		s->pfirst = x;
	s->plast = x;
	if (++s->st.pending > s->st.pending_max)
		s->st.pending_max = s->st.pending;
	while (s->st.pending > s->max_pending)
		evict_oldest(s);
	return 0;
}

static int add_user(struct pmuctx_stitch *s, const void *rec)
{
	const struct pmuctx_rec_user_callchain *r = rec;
	struct st_waiter *w;
	struct st_user *u;
	struct st_key k;
	__u64 h;

	memset(&k, 0, sizeof(k));
	k.pid = r->c.pid;
	k.tid = r->c.tid;
	k.cookie = r->cookie;
	h = key_hash(&k);
	if (tab_find(&s->users, &k, h)) {
		s->st.user_duplicates++;
		return 0;
	}
	u = calloc(1, sizeof(*u) + (size_t)r->nr * sizeof(__u64));
	if (!u)
		return -ENOMEM;
	u->h.hash = h;
	u->h.key = k;
	u->time = r->c.time;
	u->cpu = r->c.cpu;
	u->nr = r->nr;
	u->misc = r->hdr.misc;
	memcpy(u->ips, r->ips, (size_t)r->nr * sizeof(__u64));
	if (tab_insert(&s->users, &u->h)) {
		free(u);
		return -ENOMEM;
	}
	u->fprev = s->ulast;
	if (s->ulast)
		s->ulast->fnext = u;
	else
		s->ufirst = u;
	s->ulast = u;
	s->st.user_records++;
	s->st.user_unused++;

	w = (struct st_waiter *)tab_find(&s->waiters, &k, h);
	if (w)
		release_waiter(s, w, u);
	while (s->users.n > s->max_user)
		forget_oldest_user(s);
	return 0;
}

/* the thread exited: its waiting samples will not be resolved */
static void add_exit(struct pmuctx_stitch *s, const struct pmuctx_rec_exit *e)
{
	size_t i;

	if (!s->waiters.n)
		return;
	for (i = 0; i < s->waiters.nb; i++) {
		struct st_hnode *n = s->waiters.b[i], *next;

		for (; n; n = next) {
			next = n->next;
			if (n->key.tid == e->c.tid && n->key.pid == e->c.pid)
				release_waiter(s, (struct st_waiter *)n, NULL);
		}
	}
}

/* ---- API ------------------------------------------------------------- */

PMUCTX_API int pmuctx_stitch_new(struct pmuctx_stitch **out,
				 const struct pmuctx_stitch_opts *opts)
{
	struct pmuctx_stitch *s;

	if (!out)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_stitch_new: out is NULL");
	*out = NULL;
	if (!OPTS_VALID(opts, pmuctx_stitch_opts))
		return -EINVAL;
	if (OPTS_GET(opts, flags, 0))
		return pmuctx__err_set(NULL, PMUCTX_OP_OPTS, EINVAL,
				       "pmuctx_stitch_new: unknown flags "
				       "0x%x", OPTS_GET(opts, flags, 0));
	s = calloc(1, sizeof(*s));
	if (!s)
		return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_stitch_new: out of memory");
	s->max_pending = OPTS_GET(opts, max_pending, 0);
	if (!s->max_pending)
		s->max_pending = DEFAULT_MAX_PENDING;
	s->max_user = OPTS_GET(opts, max_user, 0);
	if (!s->max_user)
		s->max_user = DEFAULT_MAX_USER;
	*out = s;
	return 0;
}

static void free_samples(struct st_sample *x)
{
	struct st_sample *next;

	for (; x; x = next) {
		next = x->next;
		free(x->ips);
		free(x);
	}
}

PMUCTX_API void pmuctx_stitch_free(struct pmuctx_stitch *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->waiters.nb; i++) {
		struct st_hnode *n = s->waiters.b[i], *next;

		for (; n; n = next) {
			next = n->next;
			free_samples(((struct st_waiter *)n)->head);
			free(n);
		}
	}
	while (s->ufirst) {
		struct st_user *u = s->ufirst;

		s->ufirst = u->fnext;
		free(u);
	}
	free_samples(s->rfirst);
	free_samples(s->cur);
	free(s->waiters.b);
	free(s->users.b);
	free(s);
}

PMUCTX_API int pmuctx_stitch_add(struct pmuctx_stitch *s, const void *rec,
				 size_t size)
{
	const struct pmuctx_rec_header *h = rec;
	char why[256];
	int n, err = 0;

	if (!s || !rec)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_stitch_add: %s is NULL",
				       s ? "rec" : "the stitcher");
	n = pmuctx__record_check(rec, size, why, sizeof(why));
	if (n < 0)
		return pmuctx__err_set(NULL, PMUCTX_OP_RECORD, EBADMSG, "%s",
				       why);
	switch (h->type) {
	case PMUCTX_REC_SAMPLE:
		err = add_sample(s, rec, (size_t)n);
		break;
	case PMUCTX_REC_USER_CALLCHAIN:
		err = add_user(s, rec);
		break;
	case PMUCTX_REC_EXIT:
		add_exit(s, rec);
		break;
	default:
		s->st.ignored++;
		break;
	}
	if (err)
		return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_stitch_add: out of memory "
				       "(%llu samples waiting, %zu user "
				       "records kept)",
				       (unsigned long long)s->st.pending,
				       s->users.n);
	return s->nr_ready > INT32_MAX ? INT32_MAX : (int)s->nr_ready;
}

PMUCTX_API int pmuctx_stitch_next(struct pmuctx_stitch *s,
				  struct pmuctx_callchain *out)
{
	const struct pmuctx_rec_sample *r;
	struct st_sample *x;

	if (!s || !out)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_stitch_next: %s is NULL",
				       s ? "out" : "the stitcher");
	free_samples(s->cur);
	s->cur = NULL;
	x = s->rfirst;
	if (!x)
		return 0;
	s->rfirst = x->next;
	if (!s->rfirst)
		s->rlast = NULL;
	s->nr_ready--;
	x->next = NULL;
	s->cur = x;
	r = rec_of(x);
	memset(out, 0, sizeof(*out));
	out->sample = r;
	out->time = r->c.time;
	out->cpu = r->c.cpu;
	out->pid = r->c.pid;
	out->tid = r->c.tid;
	out->flags = x->flags;
	out->period = r->period;
	out->ip = r->ip;
	out->cookie = (r->hdr.misc & PMUCTX_SAMPLE_M_USER_DEFERRED) ?
		      r->cookie : 0;
	out->nr_kernel = r->nr_kernel;
	out->nr_user = x->nr_user;
	out->ips = x->ips;
	out->user_cpu = x->user_cpu;
	out->user_time = x->user_time;
	return 1;
}

PMUCTX_API int pmuctx_stitch_flush(struct pmuctx_stitch *s)
{
	if (!s)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_stitch_flush: the stitcher is "
				       "NULL");
	/* oldest first, so the ready queue keeps the arrival order */
	while (s->pfirst)
		release_waiter(s, s->pfirst->w, NULL);
	return s->nr_ready > INT32_MAX ? INT32_MAX : (int)s->nr_ready;
}

PMUCTX_API int pmuctx_stitch_stats(const struct pmuctx_stitch *s,
				   struct pmuctx_stitch_stats *out)
{
	if (!s || !out)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_stitch_stats: %s is NULL",
				       s ? "out" : "the stitcher");
	*out = s->st;
	return 0;
}
