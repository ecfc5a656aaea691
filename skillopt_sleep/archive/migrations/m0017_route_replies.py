"""Routing replies a project's next nights may reuse (``archive.route_replies``): the
target's answer to one routing call, by the call's key (``trigger.RouteAnswers.key``: the
target, the routing prompt with every installed card, the sampling parameters and the
sample's seed). A reply is reused only for exactly that call, and only while it is young
(``route_replies.MAX_AGE_DAYS``), so routing is looked at afresh now and then.
"""

SQL = """
CREATE TABLE route_replies (
    project     TEXT NOT NULL,
    key         TEXT NOT NULL,
    reply       TEXT NOT NULL,
    stored_at   TEXT NOT NULL,
    PRIMARY KEY (project, key)
);
CREATE INDEX route_replies_age ON route_replies (project, stored_at);
"""
