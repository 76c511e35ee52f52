// One typed call against a running server, for CI (cmd/assetd's
// TestTypeScriptTypedCall): node dist/call.js BASE_URL API_KEY ASSET_ID
// prints {"assetId", "kind", "price"} read through the generated types.
import { getAsset, primaryPrice, type Variant } from "./index.js";

declare const process: { argv: string[]; exitCode?: number };

async function main(): Promise<void> {
  const [base, key, assetId] = process.argv.slice(2);
  if (base === undefined || key === undefined || assetId === undefined) {
    throw new Error("usage: node dist/call.js BASE_URL API_KEY ASSET_ID");
  }
  const detail = await getAsset(base, key, assetId);
  const primary: Variant | null = detail.asset.primaryVariant;
  const kind: Variant["kind"] | null = primary?.kind ?? null;
  console.log(JSON.stringify({ assetId: detail.asset.assetId, kind, price: primaryPrice(detail) }));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
