-- execution:read is granted to every key by default (docs/execution.md):
-- keys that existed before the /v2/execution family get it here; new keys
-- get it from the default scope list unless --scopes leaves it out.
UPDATE api_keys
SET scopes = CASE WHEN scopes = '' THEN 'execution:read' ELSE scopes || ',execution:read' END
WHERE ',' || scopes || ',' NOT LIKE '%,execution:read,%';
