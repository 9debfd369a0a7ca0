package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/mail"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// Property names GBIF's download request deserializer accepts, aliases
// included (GBIF accepted snake_case and singular spellings for a while).
var (
	notificationAliases = []string{"notificationAddresses", "notificationAddress",
		"notification_addresses", "notification_address"}
	sendNotificationAliases = []string{"sendNotification", "send_notification"}
	knownProperties         = append(append([]string{"predicate", "creator", "format", "type",
		"verbatimExtensions", "interpretedExtensions", "description", "machineDescription", "created", "checklistKey", "fields", "sql"},
		notificationAliases...), sendNotificationAliases...)
)

// DecodeRequest reads a GBIF download request body. Unknown properties are
// rejected, as GBIF does; format defaults to DWCA and type to OCCURRENCE;
// checklistKey is trimmed and the text "null" is no key, as GBIF reads it.
// The predicate is kept as given; Submit validates it.
func DecodeRequest(body []byte) (Request, error) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		return Request{}, fmt.Errorf("%w: request body is not a JSON object: %v", ErrInvalidRequest, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%w: request body has data after the JSON object", ErrInvalidRequest)
	}
	if len(fields) == 0 {
		// GBIF's DownloadRequestSerde reads {} (and null) as no request,
		// refused with 400: an empty body must not export every record.
		return Request{}, fmt.Errorf("%w: request body is empty (want at least a predicate and a format)", ErrInvalidRequest)
	}
	for name := range fields {
		if !slices.Contains(knownProperties, name) {
			return Request{}, fmt.Errorf("%w: unknown JSON property '%s'", ErrInvalidRequest, name)
		}
	}
	if err := checkUTF8(body, fields); err != nil {
		return Request{}, err
	}
	r := Request{Format: string(download.FormatDWCA), Type: "OCCURRENCE", Predicate: fields["predicate"]}
	if err := decodeStrings(fields, &r); err != nil {
		return Request{}, err
	}
	for _, name := range notificationAliases {
		var addrs []string
		if err := decodeField(fields, name, &addrs); err != nil {
			return Request{}, err
		}
		for _, a := range addrs {
			// pygbif's download_sql sends [null] when given no address
			// (it does not read GBIF_EMAIL): no address, as GBIF reads it.
			if a != "" {
				r.NotificationAddresses = append(r.NotificationAddresses, a)
			}
		}
	}
	for _, name := range sendNotificationAliases {
		b, err := decodeJacksonBool(fields, name)
		if err != nil {
			return Request{}, err
		}
		r.SendNotification = r.SendNotification || b
	}
	if err := decodeField(fields, "verbatimExtensions", &r.VerbatimExtensions); err != nil {
		return Request{}, err
	}
	if err := decodeField(fields, "interpretedExtensions", &r.InterpretedExtensions); err != nil {
		return Request{}, err
	}
	if err := decodeField(fields, "checklistKey", &r.ChecklistKey); err != nil {
		return Request{}, err
	}
	if err := decodeField(fields, "fields", &r.Fields); err != nil {
		return Request{}, err
	}
	if err := decodeField(fields, "sql", &r.SQL); err != nil {
		return Request{}, err
	}
	if _, ok := fields["format"]; !ok && r.SQL != "" {
		// GBIF reads a request with "sql" as a SqlDownloadRequest, whose
		// one format is SQL_TSV_ZIP.
		r.Format = string(download.FormatSQLTSVZip)
	}
	if md, ok := fields["machineDescription"]; ok && string(md) != "null" {
		r.MachineDescription = md
	}
	return r, r.validate()
}

// checkUTF8 rejects a body with invalid UTF-8 outside its predicate
// (encoding/json would read it as U+FFFD), naming the property and the
// byte. The predicate's own is reported by its parser, with its path.
func checkUTF8(body []byte, fields map[string]json.RawMessage) error {
	if utf8.Valid(body) {
		return nil
	}
	off := 0
	for off < len(body) {
		r, n := utf8.DecodeRune(body[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if name != "predicate" && !utf8.Valid(fields[name]) {
			return fmt.Errorf("%w: property '%s' is not valid UTF-8 (byte %d of the body)", ErrInvalidRequest, name, off)
		}
	}
	if utf8.Valid(fields["predicate"]) {
		return fmt.Errorf("%w: a property name is not valid UTF-8 (byte %d of the body)", ErrInvalidRequest, off)
	}
	return nil
}

func decodeStrings(fields map[string]json.RawMessage, r *Request) error {
	for name, dst := range map[string]*string{"creator": &r.Creator, "format": &r.Format,
		"type": &r.Type, "description": &r.Description} {
		if err := decodeField(fields, name, dst); err != nil {
			return err
		}
	}
	r.Format = normalizeFormat(r.Format)
	r.Type = strings.ToUpper(strings.TrimSpace(r.Type))
	return nil
}

// normalizeFormat returns the registered format name s spells, ignoring
// case and the characters '.', ' ', '_' and '-' as GBIF's enum lookup does
// (simple_csv, simpleCsv and SIMPLE-CSV are SIMPLE_CSV); anything else is
// returned upper-cased, for validate to reject.
func normalizeFormat(s string) string {
	squash := func(s string) string {
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune(". _-", r) {
				return -1
			}
			return r
		}, strings.ToUpper(s))
	}
	want := squash(s)
	for _, name := range download.FormatNames() {
		if squash(name) == want {
			return name
		}
	}
	return strings.ToUpper(strings.TrimSpace(s))
}

// normalizeChecklist trims a checklist key; "null" in any case is none.
func normalizeChecklist(s string) string {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "null") {
		return ""
	}
	return s
}

func decodeField(fields map[string]json.RawMessage, name string, dst any) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%w: property '%s': %v", ErrInvalidRequest, name, err)
	}
	return nil
}

// validate checks what does not depend on the caller or the table.
func (r *Request) validate() error {
	if r.Format == "" {
		r.Format = string(download.FormatDWCA)
	}
	r.Format = normalizeFormat(r.Format)
	if _, err := download.LookupFormat(r.Format); err != nil {
		return fmt.Errorf("%w: format %q (want one of %s)", ErrUnknownFormat, r.Format, strings.Join(download.FormatNames(), ", "))
	}
	if r.Type == "" {
		r.Type = "OCCURRENCE"
	}
	r.ChecklistKey = normalizeChecklist(r.ChecklistKey)
	if utf8.RuneCountInString(r.ChecklistKey) > 200 {
		return fmt.Errorf("%w: checklistKey longer than 200 characters", ErrInvalidRequest)
	}
	if r.Type != "OCCURRENCE" {
		return fmt.Errorf("%w: type %q: only OCCURRENCE downloads are served", ErrInvalidRequest, r.Type)
	}
	if err := r.validateExtensions(); err != nil {
		return err
	}
	if err := r.validateSQL(); err != nil {
		return err
	}
	if len(r.Fields) > 0 {
		if err := download.CheckFields(download.Format(r.Format), r.Fields); err != nil {
			return fmt.Errorf("%w: fields: %v", ErrInvalidRequest, err)
		}
	}
	seen := map[string]bool{}
	var addrs []string
	for _, a := range r.NotificationAddresses {
		p, err := mail.ParseAddress(a)
		if err != nil {
			return fmt.Errorf("%w: notification address %q: %v", ErrInvalidRequest, a, err)
		}
		if !seen[p.Address] {
			seen[p.Address] = true
			addrs = append(addrs, p.Address)
		}
	}
	r.NotificationAddresses = addrs
	if utf8.RuneCountInString(r.Description) > 10_000 {
		return fmt.Errorf("%w: description longer than 10000 characters", ErrInvalidRequest)
	}
	return nil
}

// validateSQL checks a SQL download's query as GBIF's SqlValidation does
// before a download is made: one SELECT over occurrence that parses and
// names what the table has (the run checks it again, within the
// configured limits). A SQL download takes no predicate and no fields; a
// query makes no other format.
func (r *Request) validateSQL() error {
	isSQL := r.Format == string(download.FormatSQLTSVZip)
	hasPredicate := len(bytes.TrimSpace(r.Predicate)) > 0 && string(bytes.TrimSpace(r.Predicate)) != "null"
	switch {
	case !isSQL && r.SQL != "":
		return fmt.Errorf("%w: sql: a SQL query makes a %s download, not %s", ErrInvalidRequest, download.FormatSQLTSVZip, r.Format)
	case !isSQL:
		return nil
	case strings.TrimSpace(r.SQL) == "":
		return fmt.Errorf("%w: a %s download needs its query in \"sql\"", ErrInvalidRequest, download.FormatSQLTSVZip)
	case hasPredicate:
		return fmt.Errorf("%w: a SQL download takes its filter from the query's WHERE clause, not a predicate", ErrInvalidRequest)
	case len(r.Fields) > 0:
		return fmt.Errorf("%w: a SQL download's columns are its query's SELECT list, not fields", ErrInvalidRequest)
	}
	if _, err := download.ParseSQL(r.SQL, sqlquery.Options{}); err != nil {
		return fmt.Errorf("%w: sql: %v", ErrInvalidRequest, err)
	}
	return nil
}

// validateExtensions resolves verbatimExtensions and interpretedExtensions
// (row types or GBIF's names) to row types, once each, for the formats
// that carry extension files (download.ExtensionFormats): the others have
// no place for extension rows. A format's implied extensions (a FASTA
// archive's DNA_DERIVED_DATA) are added, as GBIF's DownloadResource adds
// them.
func (r *Request) validateExtensions() error {
	info, err := download.LookupFormat(r.Format)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnknownFormat, err)
	}
	if len(info.ImpliedExtensions) > 0 {
		r.VerbatimExtensions = append(slices.Clone(r.VerbatimExtensions), info.ImpliedExtensions...)
	}
	if len(r.VerbatimExtensions) > 0 && !info.Extensions {
		return fmt.Errorf("%w: verbatimExtensions: extension rows come in %s, not %s", ErrInvalidRequest,
			strings.Join(download.ExtensionFormats(), " or "), r.Format)
	}
	if r.VerbatimExtensions, err = rowTypes("verbatimExtensions", r.VerbatimExtensions); err != nil {
		return err
	}
	if r.InterpretedExtensions, err = rowTypes("interpretedExtensions", r.InterpretedExtensions); err != nil {
		return err
	}
	if _, err := download.CheckInterpretedExtensions(r.InterpretedExtensions, download.Format(r.Format)); err != nil {
		return fmt.Errorf("%w: interpretedExtensions: %v", ErrInvalidRequest, err)
	}
	return nil
}

// rowTypes resolves extension names to row types, once each (nil for
// none).
func rowTypes(field string, names []string) ([]string, error) {
	var out []string
	for _, name := range names {
		e, err := download.LookupExtension(name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalidRequest, field, err)
		}
		if !slices.Contains(out, e.RowType) {
			out = append(out, e.RowType)
		}
	}
	return out, nil
}

// decodeJacksonBool reads a boolean field much as GBIF's
// DownloadRequestSerde does (Jackson's JsonNode.asBoolean): true, a
// non-zero number or the text "true" in any case is true; false, null, 0
// or "false" is false. Clients do send "sendNotification": "True"
// (gbif/portal-feedback#3176). Other text, which Jackson reads as false
// without a word ("yes" sends no mail), is refused here, as are objects
// and arrays.
func decodeJacksonBool(fields map[string]json.RawMessage, name string) (bool, error) {
	raw, ok := fields[name]
	if !ok {
		return false, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return false, fmt.Errorf("%w: %s: %v", ErrInvalidRequest, name, err)
	}
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0, nil
	}
	return false, fmt.Errorf("%w: %s: want true or false, not %s", ErrInvalidRequest, name, raw)
}
