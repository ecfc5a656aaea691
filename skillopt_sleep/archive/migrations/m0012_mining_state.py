"""Where the miner stands in each project and vector space (``mine.miner.MiningState``).

``indexed_seq``/``mined_seq``: the last ``mined_requests.seq`` added to the faiss index /
taken up by a mining pass; ``pool``: requests the last full pass left pending;
``added``: requests taken up since that pass (the drift that decides the next full one).

``family_stats`` holds what judging a request against a family needs, per vector space:
its size, the sum of its members' vectors (float64) and the kinds of their intents
(``mine.intent.Kind`` as JSON), so a pass loads its candidate families by key instead of
re-reading and re-parsing their members.
"""

SQL = """
CREATE TABLE mining_state (
    project     TEXT NOT NULL,
    space       TEXT NOT NULL,
    indexed_seq INTEGER NOT NULL DEFAULT 0,
    mined_seq   INTEGER NOT NULL DEFAULT 0,
    pool        INTEGER NOT NULL DEFAULT 0,
    added       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project, space)
);

CREATE TABLE family_stats (
    family_id   TEXT NOT NULL,
    space       TEXT NOT NULL,
    size        INTEGER NOT NULL,
    total       BLOB NOT NULL,
    kinds       TEXT NOT NULL,
    PRIMARY KEY (family_id, space)
);
"""
