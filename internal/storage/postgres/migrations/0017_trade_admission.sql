-- Trade admission (docs/prices.md): the price rules' decision is stored
-- with each trade ('' accepted, 'dust', 'price_outlier'), so a rebuild
-- applies the same decision; candles keep the count of the trades of
-- their bar rejected from the price.
ALTER TABLE trades ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE candles ADD COLUMN rejected_dust BIGINT NOT NULL DEFAULT 0;
ALTER TABLE candles ADD COLUMN rejected_outlier BIGINT NOT NULL DEFAULT 0;
