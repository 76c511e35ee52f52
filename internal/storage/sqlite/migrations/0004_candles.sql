CREATE TABLE candles (
    mint          TEXT NOT NULL,
    interval      TEXT NOT NULL,
    start         INTEGER NOT NULL,
    open          REAL NOT NULL,
    high          REAL NOT NULL,
    low           REAL NOT NULL,
    close         REAL NOT NULL,
    volume        REAL NOT NULL,
    trades        INTEGER NOT NULL,
    open_slot     INTEGER NOT NULL,
    open_time     INTEGER NOT NULL,
    open_sig      TEXT NOT NULL,
    close_slot    INTEGER NOT NULL,
    close_time    INTEGER NOT NULL,
    close_sig     TEXT NOT NULL,
    PRIMARY KEY (mint, interval, start)
);
CREATE INDEX candles_start ON candles(start);
