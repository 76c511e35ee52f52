-- PLACEHOLDER on branch i28src only: 0015 belongs to the trade-identity helper
-- (issue #28, (signature, leg)); drop this file at merge.
SELECT 1;
