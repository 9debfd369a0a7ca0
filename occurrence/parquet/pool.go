package parquet

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pagePool is the memory.Allocator of the file readers that feed the flat
// page decoder: page and decompression buffers are recycled across column
// chunks instead of allocated (and zeroed) for each. Buffers come back
// unzeroed, which the page reader allows (it fills them before reading).
// Nothing it hands out may escape a page: the decoder copies dictionaries
// and decodes values into its own buffers.
type pagePool struct {
	classes [40]sync.Pool
}

// minPoolClass is the smallest pooled size, 4 KiB; smaller buffers are not
// worth pooling and come from the Go allocator.
const minPoolClass = 12

var pagePoolAllocator memory.Allocator = &pagePool{}

func poolClass(size int) int {
	if size <= 1<<minPoolClass {
		return minPoolClass
	}
	return bits.Len(uint(size - 1))
}

func (p *pagePool) Allocate(size int) []byte {
	c := poolClass(size)
	if c >= len(p.classes) {
		return make([]byte, size)
	}
	if b, ok := p.classes[c].Get().(*[]byte); ok {
		return (*b)[:size]
	}
	return make([]byte, size, 1<<c)
}

func (p *pagePool) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *pagePool) Free(b []byte) {
	c := cap(b)
	if c < 1<<minPoolClass || c&(c-1) != 0 {
		return // not one of ours
	}
	k := bits.Len(uint(c)) - 1
	if k >= len(p.classes) {
		return
	}
	b = b[:c]
	p.classes[k].Put(&b)
}
