// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl's netlink: the CLI's policy over the generic netlink client it
 * shares with libmrc (rdma-core-provider/providers/mrc/mrc_genl.c): one
 * socket for the process, failures that end it with a message, and the
 * kernel's refusals printed with their extack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

struct genl nl = { .fd = -1 };

void msg_init(struct genl_msg *m, uint8_t cmd, uint16_t flags)
{
	genl_msg_init(m, &nl, cmd, flags);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

void put_dev(struct genl_msg *m, const char *dev)
{
	if (all_digits(dev))
		genl_put_u32(m, ATTR_DEV_INDEX,
			     (uint32_t)strtoul(dev, NULL, 10));
	else
		genl_put_str(m, ATTR_DEV_NAME, dev);
}

void nl_open(void)
{
	int err = genl_open(&nl, MRC_FAMILY_NAME, MRC_FAMILY_VERSION);

	if (err == ENOENT) {
		fprintf(stderr,
			"Error: the \"%s\" netlink family is not registered (is rdma_mrc loaded?)\n",
			MRC_FAMILY_NAME);
		exit(EXIT_FAILED);
	}
	if (err) {
		fprintf(stderr, "mrcctl: netlink: %s\n", strerror(err));
		exit(EXIT_FAILED);
	}
}

int nl_mcgrp(const char *name)
{
	return genl_mcgrp(&nl, name);
}

void nl_join(int group)
{
	struct genl_err e = { .err = genl_join(&nl, group) };

	if (e.err) {
		nl_perror("joining the multicast group", &e);
		exit(EXIT_FAILED);
	}
}

int nl_request(struct genl_msg *m, genl_reply_cb cb, void *arg,
	       struct genl_err *e)
{
	int err = genl_request(&nl, m, cb, arg, e);

	/* Building the request ran out of memory: nothing was sent. */
	if (err && m->err) {
		fprintf(stderr, "mrcctl: building the request: %s\n",
			strerror(m->err));
		exit(EXIT_FAILED);
	}
	return err;
}

int nl_listen(genl_event_cb cb, void *arg)
{
	for (;;) {
		int ret = genl_recv_events(&nl, false, cb, arg);
		struct genl_err e = { .err = -ret };

		if (ret == -ENOBUFS) {
			/* Our socket overflowed: say so and go on. */
			fprintf(stderr, "mrcctl: events lost (%s)\n",
				strerror(ENOBUFS));
			continue;
		}
		if (ret < 0) {
			nl_perror("receiving events", &e);
			return EXIT_FAILED;
		}
		return ret > 0 ? EXIT_OK : EXIT_FAILED;
	}
}

/*
 * "Error: MSG: STRERROR (ENAME)" with the kernel's extack message; without
 * one, the request's description in its place and a second line saying so.
 */
void nl_perror(const char *what, const struct genl_err *e)
{
	const char *name = strerrorname_np(e->err);

	fprintf(stderr, "Error: %s: %s (%s)\n", e->msg[0] ? e->msg : what,
		strerror(e->err), name ? name : "?");
	if (!e->msg[0])
		fprintf(stderr, "(no message from the kernel)\n");
	if (e->has_cookie && e->err == E2BIG)
		fprintf(stderr, "needed size: %u\n", e->cookie);
	if (e->miss_type)
		fprintf(stderr, "missing attribute: %u\n", e->miss_type);
	if (e->err == EOPNOTSUPP && !e->msg[0])
		fprintf(stderr,
			"hint: the kernel may not serve this command yet\n");
}

int nl_run(const char *what, struct genl_msg *m, genl_reply_cb cb,
	   void *arg)
{
	struct genl_err e;

	if (nl_request(m, cb, arg, &e)) {
		nl_perror(what, &e);
		genl_msg_free(m);
		return EXIT_FAILED;
	}
	genl_msg_free(m);
	return EXIT_OK;
}

int nl_show(const char *what, struct genl_msg *m, genl_reply_cb cb,
	    void *arg)
{
	int ret;

	out_list_start();
	ret = nl_run(what, m, cb, arg);
	if (ret)
		out_list_abort();
	else
		out_list_end();
	return ret;
}
