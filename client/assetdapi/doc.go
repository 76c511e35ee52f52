// Package assetdapi is generated from the assetd HTTP API contract
// (api/openapi.yaml) by oapi-codegen, pinned by go.mod's tool directive:
// one Go type per component schema (Asset, Variant, Market, Stats, …) and
// a client with one method per operation. Do not edit assetdapi.gen.go;
// change the contract and run `go generate ./client/assetdapi`.
//
// Package client wraps this client with the spec's retry policy and the
// API key (client.Client.API); most programs use package client.
package assetdapi

//go:generate ./gen.sh
