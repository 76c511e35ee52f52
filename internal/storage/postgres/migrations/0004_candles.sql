CREATE TABLE candles (
    mint          TEXT NOT NULL,
    interval      TEXT NOT NULL,
    start         BIGINT NOT NULL,
    open          DOUBLE PRECISION NOT NULL,
    high          DOUBLE PRECISION NOT NULL,
    low           DOUBLE PRECISION NOT NULL,
    close         DOUBLE PRECISION NOT NULL,
    volume        DOUBLE PRECISION NOT NULL,
    trades        BIGINT NOT NULL,
    open_slot     BIGINT NOT NULL,
    open_time     BIGINT NOT NULL,
    open_sig      TEXT NOT NULL,
    close_slot    BIGINT NOT NULL,
    close_time    BIGINT NOT NULL,
    close_sig     TEXT NOT NULL,
    PRIMARY KEY (mint, interval, start)
);
CREATE INDEX candles_start ON candles(start);
