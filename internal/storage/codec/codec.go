// Package codec holds the row codecs both storage engines (sqlite,
// postgres) share: the column lists, argument orders and scans of domain
// rows, written once so the engines differ only in their SQL dialect.
package codec
