package lists

import (
	"errors"
	"fmt"
)

// Rule error codes. The first five are the spec's details.code values
// (400 BadRequestError); the others are this service's codes for the plain
// 400s the spec leaves uncoded.
const (
	CodeInvalidSlug       = "invalid_slug"
	CodeReservedSlug      = "reserved_slug"
	CodeSlugConflict      = "slug_conflict"
	CodeListFull          = "list_full"
	CodeProjectListsLimit = "project_lists_limit"

	CodeInvalidName   = "invalid_name"
	CodeInvalidStatus = "invalid_status"
	CodeInvalidNote   = "invalid_note"
	CodeInvalidRank   = "invalid_rank"
	CodeInvalidMint   = "invalid_mint" // an empty mint reached the domain
	CodeBatchTooLarge = "batch_too_large"
)

// RuleError is a broken list rule: a 400 whose Code is the stable
// details.code and whose Message is safe to show.
type RuleError struct {
	Code    string
	Message string
}

func (e *RuleError) Error() string { return "lists: " + e.Code + ": " + e.Message }

func ruleErr(code, format string, args ...any) *RuleError {
	return &RuleError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Code returns the rule code of err, or "" when err is not a *RuleError.
func Code(err error) string {
	var re *RuleError
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// ErrForbidden: the list belongs to another project (403 ForbiddenError).
// Lookups by slug that find no list return storage.ErrNotFound instead.
var ErrForbidden = errors.New("lists: the list belongs to another project")

// Constructors the engines use, so messages stay alike across engines.

// SlugConflict is the error for a slug taken by a live list or held by
// another project's rename.
func SlugConflict(slug string) *RuleError {
	return ruleErr(CodeSlugConflict, "slug %q is taken", slug)
}

// ListFull is the error for a member beyond the per-list cap.
func ListFull(max int) *RuleError {
	return ruleErr(CodeListFull, "the list already holds the maximum of %d members", max)
}

// ProjectListsLimit is the error for a list beyond the per-project cap.
func ProjectListsLimit(max int) *RuleError {
	return ruleErr(CodeProjectListsLimit, "the project already owns the maximum of %d lists", max)
}
