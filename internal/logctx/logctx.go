// Package logctx carries log attributes in a context: a job's code puts its
// download key in the context once, and every line logged with that
// context (by any package, through a handler this package wraps) carries it.
package logctx

import (
	"context"
	"log/slog"
)

type ctxKey struct{}

// With returns ctx carrying attrs in addition to those it already carries.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	prev, _ := ctx.Value(ctxKey{}).([]slog.Attr)
	all := make([]slog.Attr, 0, len(prev)+len(attrs))
	all = append(append(all, prev...), attrs...)
	return context.WithValue(ctx, ctxKey{}, all)
}

// Attrs returns the attributes ctx carries.
func Attrs(ctx context.Context) []slog.Attr {
	a, _ := ctx.Value(ctxKey{}).([]slog.Attr)
	return a
}

// Handler wraps h so that records logged with a context get the context's
// attributes. A handler already wrapped is returned as it is.
func Handler(h slog.Handler) slog.Handler {
	if _, ok := h.(handler); ok {
		return h
	}
	return handler{h}
}

// Logger returns l with its handler wrapped by Handler (nil stays nil).
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	if _, ok := l.Handler().(handler); ok {
		return l
	}
	return slog.New(Handler(l.Handler()))
}

type handler struct{ slog.Handler }

// Handle adds the context's attributes the record does not already have
// (a call that names the key itself keeps one key).
func (h handler) Handle(ctx context.Context, r slog.Record) error {
	attrs := Attrs(ctx)
	if len(attrs) == 0 {
		return h.Handler.Handle(ctx, r)
	}
	have := map[string]bool{}
	r.Attrs(func(a slog.Attr) bool {
		have[a.Key] = true
		return true
	})
	r = r.Clone()
	for _, a := range attrs {
		if !have[a.Key] {
			r.AddAttrs(a)
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return handler{h.Handler.WithAttrs(attrs)}
}

func (h handler) WithGroup(name string) slog.Handler {
	return handler{h.Handler.WithGroup(name)}
}
