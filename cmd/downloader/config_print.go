package main

import (
	"encoding/json"
	"io"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// printConfig writes the effective configuration c as YAML, secrets
// redacted (passwords in URLs too), each value followed by where it was set
// (FILE:LINE, $VARIABLE or --flag; nothing for defaults).
func printConfig(w io.Writer, c *fileConfig, origin map[string]string) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(configNode(reflect.ValueOf(c).Elem(), "", "", origin)); err != nil {
		return err
	}
	return enc.Close()
}

// configNode is v (the value at key path) as a YAML node.
func configNode(v reflect.Value, path, redact string, origin map[string]string) *yaml.Node {
	t := v.Type()
	var n *yaml.Node
	switch {
	case t == secretType:
		s := v.Interface().(secret)
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.String()}
		if s.value != "" {
			n.LineComment = "from " + s.source
		}
		return n
	case t == jsonType:
		return jsonNode(v.Bytes())
	case isScalar(t):
		n = scalarNode(v, redact)
	case t.Kind() == reflect.Struct:
		n = &yaml.Node{Kind: yaml.MappingNode}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if f.Type == reflect.TypeFor[scheduleParams]() && v.Field(i).IsZero() {
				continue // a kind without parameters
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name},
				configNode(v.Field(i), joinPath(path, name), f.Tag.Get("redact"), origin))
		}
		return n
	case t.Kind() == reflect.Slice:
		n = &yaml.Node{Kind: yaml.SequenceNode}
		for i := range v.Len() {
			n.Content = append(n.Content, configNode(v.Index(i), path+"["+strconv.Itoa(i)+"]", "", origin))
		}
		return n
	}
	if where := origin[path]; where != "" {
		n.LineComment = where
	}
	return n
}

func scalarNode(v reflect.Value, redact string) *yaml.Node {
	switch v.Type() {
	case durationType:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: duration(v.Int()).String()}
	case sizeType:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: byteSize(v.Int()).String()}
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}
	}
	s := v.String()
	if redact == "url" {
		s = redactURL(s)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// redactURL hides the password of a URL ("postgres://u:xxxxx@host/db").
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); !ok {
		return s
	}
	return u.Redacted()
}

// jsonNode is a JSON value as YAML (null when empty).
func jsonNode(b []byte) *yaml.Node {
	n := &yaml.Node{}
	var x any
	if len(b) == 0 || json.Unmarshal(b, &x) != nil || n.Encode(x) != nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return n
}
