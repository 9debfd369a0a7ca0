package abcd

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/beevik/etree"

	"github.com/biodiversity-downloads/downloader/internal/charset"
	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Namespaces of the BioCASe protocol and of ABCD 2.06 requests.
const (
	NSBioCASe = "http://www.biocase.org/schemas/protocol/1.3"
	NSABCD206 = "http://www.tdwg.org/schemas/abcd/2.06"
)

// Harvester defaults.
const (
	DefaultLimit       = 1000
	DefaultMinInterval = time.Second
	DefaultRetries     = 4
	DefaultBackoff     = 2 * time.Second
	maxSmallDocument   = 32 << 20 // inventory, capabilities
)

// Harvester talks the BioCASe protocol to one provider at a polite pace:
// paged search requests, retries with exponential backoff on 5xx, 429,
// timeouts and broken bodies; at least MinInterval between requests. The
// zero value is usable.
type Harvester struct {
	Client *http.Client
	// Logger receives warnings; nil discards.
	Logger      *slog.Logger
	Limit       int           // records per page; 0 = DefaultLimit
	MinInterval time.Duration // between request starts; 0 = DefaultMinInterval, <0 = none
	Retries     int           // extra attempts per request; 0 = DefaultRetries, <0 = none
	Backoff     time.Duration // first retry delay, doubled each time; 0 = DefaultBackoff
	Reader      Options
	// MaxResponseBytes caps one search response, whose records are held
	// until the page is complete (0 = DefaultMaxResponseBytes); inventory
	// and capabilities documents are capped at 32 MiB, or at this when it
	// is smaller.
	MaxResponseBytes int64

	mu   sync.Mutex
	last time.Time
}

// HarvestStats summarise a harvest.
type HarvestStats struct {
	Pages           int
	Records         int
	Dropped         int // recordDropped summed over pages
	TotalSearchHits int // as reported by the last page
	Retries         int
	Dataset         DatasetMeta
}

// Inventory is a provider's dataset inventory (?inventory=1, BioCASe >= 3.4).
type Inventory struct {
	ServiceURL string
	Datasets   []InventoryDataset
}

// InventoryDataset is one dataset of an inventory with its ready-made
// archives.
type InventoryDataset struct {
	Title    string
	ID       string
	Archives []InventoryArchive
}

// InventoryArchive is one downloadable archive of a dataset.
type InventoryArchive struct {
	URL       string
	Namespace string // set for ABCD archives
	RowType   string // set for DwC-A
	Size      int64
	Records   int
	Modified  string
}

// ABCDArchive returns the dataset's ABCD 2.06 or 2.1 archive, if listed:
// one whose namespace is ABCD 2's, or, without a namespace, whose name says
// ABCD 2 (BioCASe names them Title.ABCD_2.06.zip). An archive of another
// version (ABCD 1.2, 3.0) is not taken.
func (d InventoryDataset) ABCDArchive() (InventoryArchive, bool) {
	for _, a := range d.Archives {
		if IsABCD2Namespace(a.Namespace) || (a.Namespace == "" && strings.Contains(a.URL, ".ABCD_2.")) {
			return a, true
		}
	}
	return InventoryArchive{}, false
}

// Dataset finds a dataset by title (or id), case-insensitively.
func (inv *Inventory) Dataset(title string) (InventoryDataset, bool) {
	for _, d := range inv.Datasets {
		if strings.EqualFold(d.Title, title) || strings.EqualFold(d.ID, title) {
			return d, true
		}
	}
	return InventoryDataset{}, false
}

// Capabilities is a provider's capabilities response.
type Capabilities struct {
	Schemas []SupportedSchema
}

// SupportedSchema is one schema a provider maps, with its concept paths.
type SupportedSchema struct {
	Namespace string
	Concepts  []string
}

func (h *Harvester) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Logger
}

func (h *Harvester) responseCap() int64 {
	if h.MaxResponseBytes <= 0 {
		return DefaultMaxResponseBytes
	}
	return h.MaxResponseBytes
}

func (h *Harvester) client() *http.Client {
	if h.Client == nil {
		return &http.Client{Timeout: 5 * time.Minute}
	}
	return h.Client
}

// Inventory requests endpoint?inventory=1.
func (h *Harvester) Inventory(ctx context.Context, endpoint string) (*Inventory, error) {
	u, err := withParam(endpoint, "inventory", "1")
	if err != nil {
		return nil, err
	}
	doc, err := h.smallDocument(ctx, u)
	if err != nil {
		return nil, err
	}
	root := doc.Root()
	if root == nil || root.Tag != "inventory" {
		return nil, &ParseError{Op: "inventory", Path: u, Err: fmt.Errorf("%w: not a dataset inventory", ErrProtocol)}
	}
	inv := &Inventory{ServiceURL: etreeText(root.SelectElement("service_url"))}
	for _, d := range root.FindElements("datasets/dataset") {
		ds := InventoryDataset{Title: etreeText(d.SelectElement("title")), ID: etreeText(d.SelectElement("id"))}
		for _, a := range d.FindElements("archives/archive") {
			size, _ := strconv.ParseInt(a.SelectAttrValue("filesize", ""), 10, 64)
			n, _ := strconv.Atoi(a.SelectAttrValue("rcount", ""))
			ds.Archives = append(ds.Archives, InventoryArchive{URL: etreeText(a), Namespace: a.SelectAttrValue("namespace", ""),
				RowType: a.SelectAttrValue("rowType", ""), Size: size, Records: n, Modified: a.SelectAttrValue("modified", "")})
		}
		inv.Datasets = append(inv.Datasets, ds)
	}
	return inv, nil
}

// Capabilities requests the provider's capabilities (a GET without request).
func (h *Harvester) Capabilities(ctx context.Context, endpoint string) (*Capabilities, error) {
	doc, err := h.smallDocument(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	root := doc.Root()
	if root == nil || root.Tag != "response" {
		return nil, &ParseError{Op: "capabilities", Path: endpoint, Err: fmt.Errorf("%w: not a protocol response", ErrProtocol)}
	}
	c := &Capabilities{}
	for _, s := range root.FindElements("content/capabilities/SupportedSchemas") {
		sc := SupportedSchema{Namespace: s.SelectAttrValue("namespace", "")}
		for _, c := range s.SelectElements("Concept") {
			sc.Concepts = append(sc.Concepts, etreeText(c))
		}
		c.Schemas = append(c.Schemas, sc)
	}
	return c, nil
}

// smallDocument GETs a small XML document (inventory, capabilities).
func (h *Harvester) smallDocument(ctx context.Context, u string) (*etree.Document, error) {
	var doc *etree.Document
	err := h.do(ctx, u, func(body io.Reader) error {
		d := etree.NewDocument()
		d.ReadSettings.CharsetReader = charset.XMLReader
		if _, err := d.ReadFrom(zipsafe.Cap(body, min(maxSmallDocument, h.responseCap()), u, "BioCASe document")); err != nil {
			if errors.Is(err, ErrTooLarge) {
				return err
			}
			return &ParseError{Op: "read", Path: u, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
		}
		doc = d
		return nil
	})
	return doc, err
}

func etreeText(e *etree.Element) string {
	if e == nil {
		return ""
	}
	return clean(e.Text())
}

// searchRequest builds a BioCASe search request for one page.
func searchRequest(dataset string, start, limit int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><request xmlns="` + NSBioCASe + `">`)
	b.WriteString(`<header><type>search</type></header><search>`)
	b.WriteString(`<requestFormat>` + NSABCD206 + `</requestFormat>`)
	fmt.Fprintf(&b, `<responseFormat start="%d" limit="%d">%s</responseFormat>`, start, limit, NSABCD206)
	if dataset != "" {
		b.WriteString(`<filter><equals path="/DataSets/DataSet/Metadata/Description/Representation/Title">`)
		xml.EscapeText(&b, []byte(dataset))
		b.WriteString(`</equals></filter>`)
	}
	b.WriteString(`<count>false</count></search></request>`)
	return b.String()
}

// Harvest pages through the dataset (all data when dataset is "") and calls
// emit for every record; a page's records are emitted only once the whole
// page has been read, so a retried page never duplicates records. Paging
// follows both conventions: it continues while recordStart + recordCount +
// recordDropped < totalSearchHits (an exact total, or start+count+dropped+1
// from providers that do not count) and stops on an empty page.
func (h *Harvester) Harvest(ctx context.Context, endpoint, dataset string, emit func(occurrence.RawRecord) error) (HarvestStats, error) {
	return h.harvestPages(ctx, endpoint, dataset, func(recs []occurrence.RawRecord, _ ProtocolInfo, _ DatasetMeta) error {
		for _, r := range recs {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	})
}

func (h *Harvester) harvestPages(ctx context.Context, endpoint, dataset string, page func([]occurrence.RawRecord, ProtocolInfo, DatasetMeta) error) (HarvestStats, error) {
	var st HarvestStats
	limit := h.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	start := 0
	for {
		u, err := withParam(endpoint, "request", searchRequest(dataset, start, limit))
		if err != nil {
			return st, err
		}
		var recs []occurrence.RawRecord
		var info ProtocolInfo
		var meta DatasetMeta
		err = h.do(ctx, u, func(body io.Reader) error {
			name := fmt.Sprintf("%s (start=%d)", endpoint, start)
			recs, info, meta, err = h.readPage(ctx, zipsafe.Cap(body, h.responseCap(), name, "BioCASe response"), name)
			return err
		})
		if err != nil {
			return st, err
		}
		if st.Pages == 0 {
			st.Dataset = meta
		}
		st.Pages++
		st.Records += len(recs)
		st.Dropped += info.RecordDropped
		st.TotalSearchHits = info.TotalSearchHits
		if err := page(recs, info, meta); err != nil {
			return st, err
		}
		next := info.RecordStart + info.RecordCount + info.RecordDropped
		if info.RecordCount+info.RecordDropped == 0 || next >= info.TotalSearchHits || next <= start {
			return st, nil
		}
		start = next
	}
}

// readPage parses one search response completely.
func (h *Harvester) readPage(ctx context.Context, body io.Reader, name string) ([]occurrence.RawRecord, ProtocolInfo, DatasetMeta, error) {
	r := NewReader(body, name, h.Reader)
	var recs []occurrence.RawRecord
	for {
		rec, err := r.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, r.Protocol(), r.Dataset(), err
		}
		recs = append(recs, rec)
	}
	p := r.Protocol()
	if !p.IsResponse {
		return nil, p, r.Dataset(), &ParseError{Op: "search", Path: name, Err: fmt.Errorf("%w: answer is not a BioCASe response", ErrProtocol)}
	}
	if !p.HasContent {
		msg := "response has no content"
		for _, d := range p.Diagnostics {
			if strings.EqualFold(d.Severity, "ERROR") || strings.EqualFold(d.Severity, "FATAL") {
				msg = d.Text
				break
			}
		}
		return nil, p, r.Dataset(), &ParseError{Op: "search", Path: name, Err: fmt.Errorf("%w: %s", ErrProtocol, msg)}
	}
	if p.RecordCount == 0 && len(recs) > 0 {
		p.RecordCount = len(recs) // providers that omit the attributes
	}
	return recs, p, r.Dataset(), nil
}

// permanent marks an error not worth retrying.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// do GETs u at the polite rate and hands the body to read, retrying on
// 5xx/429, network errors, timeouts and bodies that break off (read errors
// other than ErrProtocol and entity/size refusals).
func (h *Harvester) do(ctx context.Context, u string, read func(io.Reader) error) error {
	retries := h.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	backoff := h.Backoff
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	for attempt := 0; ; attempt++ {
		err := h.once(ctx, u, read)
		if p, ok := errors.AsType[permanent](err); ok {
			return p.err
		}
		if err == nil || ctx.Err() != nil || attempt >= retries {
			return err
		}
		h.logger().Warn("BioCASe request failed; retrying", "url", redact(u), "attempt", attempt+1, "err", err)
		select {
		case <-time.After(backoff << attempt):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (h *Harvester) once(ctx context.Context, u string, read func(io.Reader) error) error {
	if err := h.wait(ctx); err != nil {
		return permanent{err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return permanent{err}
	}
	req.Header.Set("User-Agent", "biodiversity-downloads/abcd (BioCASe harvester)")
	resp, err := h.client().Do(req)
	if err != nil {
		return err // network error or timeout: retry
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fmt.Errorf("%w: HTTP %s from %s", ErrProtocol, resp.Status, redact(u))
	}
	if resp.StatusCode != http.StatusOK {
		return permanent{fmt.Errorf("%w: HTTP %s from %s", ErrProtocol, resp.Status, redact(u))}
	}
	err = read(resp.Body)
	if err == nil {
		return nil
	}
	var ne net.Error
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) || errors.Is(err, ErrSyntax) && !errors.Is(err, ErrEntity) {
		return err // broken body: retry
	}
	return permanent{err}
}

// wait enforces MinInterval between request starts.
func (h *Harvester) wait(ctx context.Context) error {
	iv := h.MinInterval
	if iv == 0 {
		iv = DefaultMinInterval
	}
	h.mu.Lock()
	next := h.last.Add(iv)
	now := time.Now()
	if iv < 0 || next.Before(now) {
		next = now
	}
	h.last = next
	h.mu.Unlock()
	if d := time.Until(next); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// withParam adds a query parameter to an endpoint URL.
func withParam(endpoint, key, val string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("BioCASe endpoint %q: %w", endpoint, err)
	}
	q := u.Query()
	q.Set(key, val)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// redact shortens a request URL for logs (the request XML is long).
func redact(u string) string {
	if i := strings.Index(u, "request="); i >= 0 {
		return u[:i] + "request=..."
	}
	return u
}
