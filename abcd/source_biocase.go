package abcd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/tmpfile"
	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// resolveBioCASe turns an endpoint into documents: the provider's ABCD
// archive when the inventory lists one for the dataset, else one paged
// harvest stream.
func (s *Source) resolveBioCASe(ctx context.Context, endpoint string) ([]document, error) {
	h := s.opts.Harvester
	if h == nil {
		h = &Harvester{Logger: s.opts.Logger, Reader: s.opts.Reader, MaxResponseBytes: min(DefaultMaxResponseBytes, s.opts.Reader.MaxDocumentBytes)}
	}
	dataset := s.opts.Dataset
	inv, err := h.Inventory(ctx, endpoint)
	switch {
	case err != nil:
		s.opts.Logger.Info("BioCASe inventory unavailable; harvesting by search requests", "endpoint", endpoint, "err", err)
	default:
		if dataset == "" && len(inv.Datasets) == 1 {
			dataset = inv.Datasets[0].Title
		}
		if dataset != "" {
			d, ok := inv.Dataset(dataset)
			if !ok {
				var titles []string
				for _, d := range inv.Datasets {
					titles = append(titles, fmt.Sprintf("%q", d.Title))
				}
				return nil, fmt.Errorf("%w: %q at %s (inventory lists %s)", ErrDatasetNotFound, dataset, endpoint, strings.Join(titles, ", "))
			}
			if a, ok := d.ABCDArchive(); ok {
				docs, err := s.archiveFromProvider(ctx, h, a.URL)
				if err == nil {
					return docs, nil
				}
				s.opts.Logger.Warn("provider's ABCD archive unusable; harvesting by search requests", "archive", a.URL, "err", err)
			}
		}
	}
	return []document{{name: endpoint, stream: func(ctx context.Context, send func(docMsg) bool) {
		st, err := h.harvestPages(ctx, endpoint, dataset, func(recs []occurrence.RawRecord, _ ProtocolInfo, meta DatasetMeta) error {
			if !send(docMsg{name: endpoint, records: recs, meta: meta}) {
				return ctx.Err()
			}
			return nil
		})
		send(docMsg{name: endpoint, final: true, meta: st.Dataset, proto: ProtocolInfo{RecordDropped: st.Dropped}, units: st.Records, err: err, fatal: err != nil})
	}}}, nil
}

// archiveFromProvider downloads an ABCD archive to a temporary file (removed
// by Close) and opens it.
func (s *Source) archiveFromProvider(ctx context.Context, h *Harvester, u string) ([]document, error) {
	// Named: the archive is opened by path.
	f, err := tmpfile.CreateNamed(s.opts.TempDir, "abcd", ".zip")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	remove := func() error { return os.Remove(name) }
	err = h.do(ctx, u, func(body io.Reader) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return permanent{err}
		}
		if err := f.Truncate(0); err != nil {
			return permanent{err}
		}
		_, err := io.Copy(f, zipsafe.Cap(body, s.opts.MaxDownloadBytes, u, "ABCD archive download"))
		return err
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove()
		return nil, err
	}
	a, err := OpenArchive(name, s.opts.Archive)
	if err != nil {
		remove()
		return nil, err
	}
	s.cleanup = append(s.cleanup, remove, a.Close)
	docs := a.documents()
	for i := range docs {
		docs[i].name = u + "!" + strings.TrimPrefix(docs[i].name, name+"!")
	}
	return docs, nil
}
