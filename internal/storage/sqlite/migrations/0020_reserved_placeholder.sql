-- PLACEHOLDER so branch dash (migration 0022) has no gap: migration
-- versions must start at 1 without gaps. At merge, delete this file in
-- favour of the real 0020 migration of the branch that owns the number.
SELECT 1;
