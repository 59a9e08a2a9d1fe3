// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: EV format, EV and CC profiles, and the binding of QPs to them.
 *
 * First slice: no profiles; every QP uses the built-in behaviour.
 */
#include "mrc.h"

int mrc_profile_dev_init(struct mrc_dev *dev)
{
	return 0;
}

void mrc_profile_dev_cleanup(struct mrc_dev *dev)
{
}

/* Bind @qp to its profiles; ids 0 with !@explicit_bind: the defaults. */
int mrc_profile_bind_qp(struct mrc_qp *qp, u64 ev_id, u64 cc_id,
			bool explicit_bind)
{
	if (ev_id || cc_id)
		return -ENOENT;
	qp->ev_profile = NULL;
	qp->cc_profile = NULL;
	qp->profile_explicit = explicit_bind;
	return 0;
}

void mrc_profile_unbind_qp(struct mrc_qp *qp)
{
}

/* How long an EV stays in SKIP (dev-set ev-skip-hold-us), in us. */
u32 mrc_profile_skip_hold_us(struct mrc_dev *dev)
{
	return MRC_DEFAULT_EV_SKIP_HOLD_US;
}

/*
 * The EVs of @qp's EV profile (at most @max), with its DENIED slots set in
 * @denied and its ev-min-active in *@min_active; 0 for the built-in
 * behaviour.  Atomic context.
 */
unsigned int mrc_profile_qp_evs(struct mrc_qp *qp, struct mrc_path *evs,
				unsigned long *denied, unsigned int max,
				u32 *min_active)
{
	return 0;
}
