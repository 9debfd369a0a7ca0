package hrpc

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffDoublesUpToMax(t *testing.T) {
	b := backoff{d: time.Millisecond, max: 3 * time.Millisecond}
	for _, want := range []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 3 * time.Millisecond} {
		if err := b.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if b.d != want {
			t.Fatalf("delay %s, want %s", b.d, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.d = time.Hour
	if err := b.wait(ctx); !errors.Is(err, context.Canceled) || b.d != time.Hour {
		t.Fatalf("cancelled wait: %v, delay %s", err, b.d)
	}
}
