package occurrence

// AppendJSONString appends s as a JSON string, quoted as encoding/json
// quotes it (the verbatim and multimedia columns' encoding): for writers of
// JSON documents built from records (the search API's records).
func AppendJSONString(buf []byte, s string) []byte { return appendJSONString(buf, s) }
