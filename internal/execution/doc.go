// Package execution answers the /v2/execution/* family: static swap deep
// links (links), live multi-provider quotes for one mint (evaluate), and
// the asset-level route that quotes every same-unit variant of a canonical
// asset and splits an order across them (route). See docs/execution.md.
//
// The rules are pure functions over values (venue URL building, amount
// parsing, winner and edge arithmetic, variant selection, curves, the
// allocation); the only waiting is the quote fan-out, which runs the
// Provider interface declared here within a fixed total budget. Amounts are
// integers (math/big) in the token's raw units; prices and basis points
// are display values.
package execution
