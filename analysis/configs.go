package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// pprof's saved configurations: the web UI's Config menu keeps named
// sets of settings in os.UserConfigDir()/pprof/settings.json, as
// {"configs": [{"name": ..., FIELD: VALUE, ...}]}, the fields being
// pprof's settings by their names. A ConfigFile reads and writes that
// file so that a configuration saved in either tool appears in the
// other; what it does not know (fields, top-level keys, whole
// configurations it does not touch) it writes back as it read it.

// configField is one field pprof saves: its name (the JSON key, also
// our setting's name), its JSON kind, pprof's default value (spelled as
// the setting's Value spells it) and its URL parameter in pprof's web
// UI. The order is pprof's (its config struct), which is the order it
// writes them in.
type configField struct {
	name     string
	kind     Kind // KindBool, KindInt, KindFloat or KindString
	def      string
	urlParam string
	// setting: the field is one of our settings (normalize is a source
	// flag here, so it is kept but not applied).
	setting bool
}

var configFields = []configField{
	{"call_tree", KindBool, "false", "calltree", true},
	{"relative_percentages", KindBool, "false", "rel", true},
	{"unit", KindString, "minimum", "unit", true},
	{"compact_labels", KindBool, "false", "compact", true},
	{"intel_syntax", KindBool, "false", "intel", true},
	{"mean", KindBool, "false", "mean", true},
	{"normalize", KindBool, "false", "norm", false},
	{"sort", KindString, "flat", "sort", true},
	{"tagroot", KindString, "", "", true},
	{"tagleaf", KindString, "", "", true},
	{"drop_negative", KindBool, "false", "dropneg", true},
	{"nodecount", KindInt, "-1", "n", true},
	{"nodefraction", KindFloat, "0.005", "nf", true},
	{"edgefraction", KindFloat, "0.001", "ef", true},
	{"trim", KindBool, "true", "trim", true},
	{"focus", KindString, "", "f", true},
	{"ignore", KindString, "", "i", true},
	{"prune_from", KindString, "", "prunefrom", true},
	{"hide", KindString, "", "h", true},
	{"show", KindString, "", "s", true},
	{"show_from", KindString, "", "sf", true},
	{"tagfocus", KindString, "", "tf", true},
	{"tagignore", KindString, "", "ti", true},
	{"tagshow", KindString, "", "ts", true},
	{"taghide", KindString, "", "th", true},
	{"noinlines", KindBool, "false", "noinlines", true},
	{"showcolumns", KindBool, "false", "showcolumns", true},
	{"granularity", KindString, "", "g", true},
}

// ConfigFields names the settings a saved configuration holds, in
// pprof's order: pprof's saved fields that are settings here.
// (sample_index, divide_by, source_path and trim_path are not saved, as
// in pprof.)
func ConfigFields() []string {
	var names []string
	for _, f := range configFields {
		if f.setting {
			names = append(names, f.name)
		}
	}
	return names
}

// jsonField is one key of a JSON object and its value as it was read.
type jsonField struct {
	key   string
	value json.RawMessage
}

// savedConfig is one named configuration: its fields besides "name", in
// the file's order.
type savedConfig struct {
	name   string
	fields []jsonField
}

func (c *savedConfig) get(key string) (json.RawMessage, bool) {
	for _, f := range c.fields {
		if f.key == key {
			return f.value, true
		}
	}
	return nil, false
}

// ConfigFile is pprof's settings.json.
type ConfigFile struct {
	configs []savedConfig
	other   []jsonField // top-level keys besides "configs", kept as read
}

// ParseConfigFile reads settings.json's bytes; empty bytes are a file
// without configurations.
func ParseConfigFile(data []byte) (*ConfigFile, error) {
	f := &ConfigFile{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	top, err := objectFields(data)
	if err != nil {
		return nil, fmt.Errorf("could not parse settings: %w", err)
	}
	for _, kv := range top {
		if kv.key != "configs" {
			f.other = append(f.other, kv)
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(kv.value, &list); err != nil {
			return nil, fmt.Errorf("could not parse settings: configs: %w", err)
		}
		for i, raw := range list {
			fields, err := objectFields(raw)
			if err != nil {
				return nil, fmt.Errorf("could not parse settings: config %d: %w", i, err)
			}
			c := savedConfig{}
			for _, kv := range fields {
				if kv.key == "name" {
					if err := json.Unmarshal(kv.value, &c.name); err != nil {
						return nil, fmt.Errorf("could not parse settings: config %d: name: %w", i, err)
					}
					continue
				}
				c.fields = append(c.fields, kv)
			}
			f.configs = append(f.configs, c)
		}
	}
	return f, nil
}

// objectFields splits a JSON object into its keys and raw values, in
// order.
func objectFields(data []byte) ([]jsonField, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []jsonField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonField{t.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// Marshal is the file's bytes, indented as pprof indents them.
func (f *ConfigFile) Marshal() []byte {
	var b bytes.Buffer
	key := func(k string) {
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
	}
	b.WriteByte('{')
	key("configs")
	b.WriteByte('[')
	for i, c := range f.configs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		key("name")
		nb, _ := json.Marshal(c.name)
		b.Write(nb)
		for _, kv := range c.fields {
			b.WriteByte(',')
			key(kv.key)
			b.Write(kv.value)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	for _, kv := range f.other {
		b.WriteByte(',')
		key(kv.key)
		b.Write(kv.value)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return b.Bytes() // every part was valid JSON; not reached
	}
	return out.Bytes()
}

// Names lists the configurations' names, in the file's order.
func (f *ConfigFile) Names() []string {
	names := make([]string, len(f.configs))
	for i, c := range f.configs {
		names[i] = c.name
	}
	return names
}

func (f *ConfigFile) find(name string) int {
	return slices.IndexFunc(f.configs, func(c savedConfig) bool { return c.name == name })
}

// errNoConfig is the error for a name the file does not have.
func (f *ConfigFile) errNoConfig(name string) error {
	msg := fmt.Sprintf("no saved configuration %q", name)
	if names := f.Names(); len(names) > 0 {
		msg += " (saved: " + strings.Join(names, ", ") + ")"
	}
	return errors.New(msg)
}

// Apply returns o with configuration name applied, as pprof's Config
// menu applies it: every field the configuration saves is set, a field
// at pprof's default (or absent, which JSON reads as its zero value, as
// pprof does) to its value in defaults, the tool's own default. The
// settings a configuration does not hold (sample_index, divide_by,
// source paths) stay as they are.
func (f *ConfigFile) Apply(name string, o, defaults Options) (Options, error) {
	i := f.find(name)
	if i < 0 {
		return o, f.errNoConfig(name)
	}
	c := &f.configs[i]
	for _, cf := range configFields {
		if !cf.setting {
			continue
		}
		v, err := cf.read(c)
		if err != nil {
			return o, fmt.Errorf("configuration %q: %s: %w", name, cf.name, err)
		}
		s := lookup(cf.name)
		if v == cf.def || cf.kind == KindString && v == "" {
			// pprof's default; an empty text field (sort, unit,
			// granularity) leaves pprof's URL without it: the default too.
			v = s.Value(defaults)
		}
		if err := o.Set(cf.name, v); err != nil {
			return o, fmt.Errorf("configuration %q: %w", name, err)
		}
	}
	return o, nil
}

// read is the field's value in c, spelled as the setting's Value
// spells it; an absent field is its JSON zero value.
func (cf configField) read(c *savedConfig) (string, error) {
	raw, ok := c.get(cf.name)
	if !ok || string(raw) == "null" {
		raw = nil
	}
	switch cf.kind {
	case KindBool:
		return readAs(raw, strconv.FormatBool)
	case KindInt:
		return readAs(raw, strconv.Itoa)
	case KindFloat:
		return readAs(raw, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
	default:
		return readAs(raw, func(s string) string { return s })
	}
}

// readAs decodes raw (nil: absent) as a T, spelled by spell.
func readAs[T any](raw json.RawMessage, spell func(T) string) (string, error) {
	var v T
	if raw != nil {
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", err
		}
	}
	return spell(v), nil
}

// pprofValue is the field's value pprof should see for o: pprof's
// default where o has the tool's default (defaults), else o's.
func (cf configField) pprofValue(o, defaults Options) string {
	s := lookup(cf.name)
	v := s.Value(o)
	if v == s.Value(defaults) {
		return cf.def
	}
	return v
}

// encode is v as the field's JSON value; ok is false for the zero value,
// which pprof omits (omitempty).
func (cf configField) encode(v string) (raw json.RawMessage, ok bool) {
	var x any
	switch cf.kind {
	case KindBool:
		b, _ := strconv.ParseBool(v)
		x, ok = b, b
	case KindInt:
		n, _ := strconv.Atoi(v)
		x, ok = n, n != 0
	case KindFloat:
		f, _ := strconv.ParseFloat(v, 64)
		x, ok = f, f != 0
	default:
		x, ok = v, v != ""
	}
	raw, _ = json.Marshal(x)
	return raw, ok
}

// Save sets configuration name to o's settings (replacing one of that
// name, as pprof's "Save as" does, or adding it at the end). As pprof
// saves them, settings at their default are written as pprof's
// defaults. What the configuration held besides our settings (fields we
// do not know, normalize) is kept.
func (f *ConfigFile) Save(name string, o, defaults Options) error {
	if name == "" {
		return errors.New("a configuration needs a name")
	}
	i := f.find(name)
	if i < 0 {
		f.configs = append(f.configs, savedConfig{name: name})
		i = len(f.configs) - 1
	}
	old := f.configs[i]
	var fields []jsonField
	for _, cf := range configFields {
		v := cf.def
		if cf.setting {
			v = cf.pprofValue(o, defaults)
		} else if raw, ok := old.get(cf.name); ok {
			fields = append(fields, jsonField{cf.name, raw})
			continue
		}
		if raw, ok := cf.encode(v); ok {
			fields = append(fields, jsonField{cf.name, raw})
		}
	}
	for _, kv := range old.fields {
		if !slices.ContainsFunc(configFields, func(cf configField) bool { return cf.name == kv.key }) {
			fields = append(fields, kv)
		}
	}
	f.configs[i].fields = fields
	return nil
}

// Delete removes configuration name.
func (f *ConfigFile) Delete(name string) error {
	i := f.find(name)
	if i < 0 {
		return f.errNoConfig(name)
	}
	f.configs = slices.Delete(f.configs, i, i+1)
	return nil
}

// PprofURLQuery is the query of pprof's web UI URL (go tool pprof -http)
// with o's settings: the parameters of the fields pprof saves that are
// not at pprof's default (booleans as t or f, as pprof spells them),
// and si for a sample type; "" when everything is at its default.
func PprofURLQuery(o, defaults Options) string {
	q := url.Values{}
	for _, cf := range configFields {
		if !cf.setting || cf.urlParam == "" {
			continue
		}
		v := cf.pprofValue(o, defaults)
		if v == cf.def {
			continue
		}
		if cf.kind == KindBool {
			v = v[:1]
		}
		q.Set(cf.urlParam, v)
	}
	if o.SampleIndex != "" {
		q.Set("si", o.SampleIndex)
	}
	return q.Encode()
}

// ConfigFilePath is where pprof keeps its settings:
// os.UserConfigDir()/pprof/settings.json.
func ConfigFilePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "pprof", "settings.json"), nil
}

// ReadConfigFile reads the settings file at path; a missing file has no
// configurations.
func ReadConfigFile(path string) (*ConfigFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &ConfigFile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("could not read settings: %w", err)
	}
	f, err := ParseConfigFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// WriteConfigFile writes f to path as pprof does (the directory made
// 0700, the file 0644), through a temporary file renamed into place so
// that a reader never sees half of it.
func WriteConfigFile(path string, f *ConfigFile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("failed to create settings directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return fmt.Errorf("failed to write settings: %w", err)
	}
	_, err = tmp.Write(f.Marshal())
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to write settings: %w", err)
	}
	return nil
}
