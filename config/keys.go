package config

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"gopkg.in/yaml.v3"
)

// checkKeys reports every key of the YAML document that names no field of the struct type t,
// at any depth, as `unknown key "path"`. It reads the document itself rather than relying on
// the decoder's unused-key check, which never sees a key whose value is empty (`featurez: {}`)
// or null (`featurez:`), and which names neither the file nor the key's full path.
func checkKeys(c collector, data []byte, t reflect.Type) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return // a syntax error is reported by the reader; an empty file has no keys
	}
	walkKeys(c, doc.Content[0], t, "")
}

// walkKeys checks node against type t: a struct's keys against its fields, a list of structs
// element by element. Any other shape is the decoder's to judge.
func walkKeys(c collector, node *yaml.Node, t reflect.Type, path string) {
	if node.Kind == yaml.AliasNode && node.Alias != nil {
		node = node.Alias
	}
	switch {
	case t.Kind() == reflect.Struct && node.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i].Value, node.Content[i+1]
			if key == "<<" && node.Content[i].Tag == "!!merge" {
				// A merge key brings in the keys of the mapping (or mappings) it names.
				walkMerged(c, value, t, path)
				continue
			}
			keyPath := key
			if path != "" {
				keyPath = path + "." + key
			}
			f, ok := fieldByKey(t, key)
			if !ok {
				c.add("", "unknown key %q", keyPath)
				continue
			}
			walkKeys(c, value, f.Type, keyPath)
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && node.Kind == yaml.SequenceNode:
		for i, item := range node.Content {
			walkKeys(c, item, t.Elem(), fieldIndex(path, i))
		}
	}
}

// walkMerged checks the mappings a merge key names as if written in place.
func walkMerged(c collector, value *yaml.Node, t reflect.Type, path string) {
	if value.Kind == yaml.SequenceNode {
		for _, m := range value.Content {
			walkKeys(c, m, t, path)
		}
		return
	}
	walkKeys(c, value, t, path)
}

// fieldByKey finds the field of struct type t whose mapstructure tag is name, a YAML key as
// written in a file, ignoring case as the reader does.
func fieldByKey(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("mapstructure")
		if f.IsExported() && tag != "" && tag != "-" && strings.EqualFold(tag, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// decodeProblems reports each field the decoder could not set (a value of the wrong type, a
// duration that does not parse) as a problem of that field, and returns those fields, so that
// validation does not report them a second time as missing or out of range.
func decodeProblems(c collector, err error) map[string]bool {
	failed := map[string]bool{}
	if err == nil {
		return failed
	}
	var leaves []*mapstructure.DecodeError
	collectDecodeErrors(err, &leaves)
	if len(leaves) == 0 {
		c.add("", "%v", err)
		return failed
	}
	for _, e := range leaves {
		field := strings.TrimPrefix(e.Name(), ".")
		failed[field] = true
		c.add(field, "%v", e.Unwrap())
	}
	return failed
}

// collectDecodeErrors gathers the innermost named errors of the decoder's joined error tree.
func collectDecodeErrors(err error, out *[]*mapstructure.DecodeError) {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			collectDecodeErrors(e, out)
		}
		return
	}
	var de *mapstructure.DecodeError
	if !errors.As(err, &de) {
		return
	}
	if inner := de.Unwrap(); inner != nil {
		var nested *mapstructure.DecodeError
		if _, multi := inner.(interface{ Unwrap() []error }); multi || errors.As(inner, &nested) {
			collectDecodeErrors(inner, out)
			return
		}
	}
	*out = append(*out, de)
}

// envName is the environment variable that overrides a server-file field (log.level ->
// PROCTOR_LOG_LEVEL; an index such as trusted_proxies[2] names the whole list's variable).
func envName(field string) string {
	if i := strings.IndexByte(field, '['); i >= 0 {
		field = field[:i]
	}
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(field, ".", "_"))
}
