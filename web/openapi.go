package web

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/search"
)

//go:embed openapi.json
var openAPISource []byte

// openAPIDoc is the served OpenAPI document: openapi.json with the lists
// the code defines once filled in, the download formats from the format
// registry and the statuses from the job service, so that the document
// cannot drift from what the API accepts.
var openAPIDoc = completeOpenAPI(openAPISource)

func completeOpenAPI(src []byte) []byte {
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		panic(fmt.Sprintf("web: openapi.json: %v", err))
	}
	schemas, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)
	if !ok {
		panic("web: openapi.json has no components.schemas")
	}
	statuses := make([]string, len(jobs.Statuses()))
	for i, s := range jobs.Statuses() {
		statuses[i] = string(s)
	}
	setEnum(schemas, "Format", download.FormatNames())
	setEnum(schemas, "Status", statuses)
	setEnum(schemas, "FacetField", search.FacetKeys())
	setEnum(schemas, "SuggestField", search.SuggestNames())
	setRecordFields(schemas)
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(fmt.Sprintf("web: openapi.json: %v", err))
	}
	return out
}

// setEnum gives the string schema name its enum values.
func setEnum(schemas map[string]any, name string, values []string) {
	s, ok := schemas[name].(map[string]any)
	if !ok {
		panic("web: openapi.json has no schema " + name)
	}
	s["enum"] = values
}

// setRecordFields lists the occurrence JSON's members, from the column
// list, as the Occurrence schema's properties.
func setRecordFields(schemas map[string]any) {
	s, ok := schemas["Occurrence"].(map[string]any)
	if !ok {
		panic("web: openapi.json has no schema Occurrence")
	}
	props := map[string]any{}
	for _, f := range search.RecordFields() {
		p := map[string]any{"type": f.Type}
		if f.Format != "" {
			p["format"] = f.Format
		}
		props[f.Name] = p
	}
	s["properties"] = props
}
