// @assetd/api-types: the assetd HTTP API's types, generated from
// api/openapi.yaml by openapi-typescript (src/api.d.ts; `npm run generate`),
// and a typed fetch of one operation as an example of their use.
import type { components, operations, paths } from "./api.js";

export type { components, operations, paths };

type Schemas = components["schemas"];
export type Asset = Schemas["Asset"];
export type Variant = Schemas["Variant"];
export type Market = Schemas["Market"];
export type Stats = Schemas["Stats"];
export type ExecutionQuality = Schemas["ExecutionQuality"];
export type Advisory = Schemas["Advisory"];
export type AssetDetail = Schemas["AssetDetail"];
export type TrendingRow = Schemas["TrendingRow"];
export type ListSummary = Schemas["ListSummary"];
export type V2ListToken = Schemas["V2ListToken"];
export type SearchTokensResult = Schemas["SearchTokensResult"];
export type NewsItem = Schemas["NewsItem"];
export type ErrorEnvelope = Schemas["ErrorEnvelope"];

/** The 200 body of GET /v1/assets/{assetId}. */
export type GetAssetResponse =
  paths["/v1/assets/{assetId}"]["get"]["responses"][200]["content"]["application/json"];

/** An answer of the server other than 2xx, with its error envelope. */
export class AssetdError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope | null,
  ) {
    super(`assetd: ${status} ${envelope?.error._tag ?? ""}: ${envelope?.error.message ?? ""}`);
  }
}

/** getAsset calls GET /v1/assets/{assetId} with the API key. */
export async function getAsset(baseURL: string, apiKey: string, assetId: string): Promise<GetAssetResponse> {
  const res = await fetch(`${baseURL.replace(/\/$/, "")}/v1/assets/${encodeURIComponent(assetId)}`, {
    headers: { "x-api-key": apiKey, accept: "application/json" },
  });
  if (!res.ok) {
    let env: ErrorEnvelope | null = null;
    try {
      env = (await res.json()) as ErrorEnvelope;
    } catch {
      env = null;
    }
    throw new AssetdError(res.status, env);
  }
  return (await res.json()) as GetAssetResponse;
}

/** primaryPrice is the primary variant's market price, or null. */
export function primaryPrice(detail: AssetDetail): number | null {
  const price: number | null | undefined = detail.asset.primaryVariant?.market?.price;
  return price ?? null;
}
