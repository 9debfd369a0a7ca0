package sqlquery

import (
	"errors"
	"fmt"
	"strings"
)

// Error kinds.
var (
	// ErrInvalidSQL marks a query that does not parse, reads what the
	// table does not have or uses what the dialect does not offer.
	ErrInvalidSQL = errors.New("invalid SQL")
	// ErrTooLarge marks a query whose groups or sorted rows outgrow the
	// run's memory budget.
	ErrTooLarge = errors.New("SQL result too large")
)

// Error says where a query is wrong: the 1-based line and column of the
// token (0 when the parser did not say), the text near it and why.
type Error struct {
	Line, Column int
	Near         string
	Reason       string
	Err          error // ErrInvalidSQL or ErrTooLarge
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Unwrap().Error())
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d column %d", e.Line, e.Column)
	}
	if e.Near != "" {
		near := e.Near
		if len(near) > 80 {
			near = near[:77] + "..."
		}
		fmt.Fprintf(&b, " near %q", near)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

func (e *Error) Unwrap() error {
	if e.Err == nil {
		return ErrInvalidSQL
	}
	return e.Err
}

// invalid is an ErrInvalidSQL about near.
func invalid(near, format string, args ...any) *Error {
	return &Error{Near: near, Reason: fmt.Sprintf(format, args...)}
}
