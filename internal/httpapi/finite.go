package httpapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// encodeFinite is the fallback of writeJSON when encoding/json refuses a
// value (it errors on NaN and ±Inf): it writes v as encoding/json would,
// except that every non-finite float becomes null, and returns the JSON
// path of the first one (e.g. "rows[3].market.price"). It follows the
// encoding/json rules the response types use: exported fields, json tag
// names, "-", omitempty, omitzero, embedded structs flattened, maps with sorted
// keys, nil slices and maps as null, json.Marshaler and
// encoding.TextMarshaler values. It walks by reflection and is only ever
// on the error path, so the hot path keeps encoding/json's speed.
func encodeFinite(buf *bytes.Buffer, v any) (first string, err error) {
	e := &finiteEncoder{buf: buf}
	rv := reflect.ValueOf(v)
	if rv.IsValid() {
		// An addressable copy, so fields reached through unexported
		// embedded structs can be read (writable) through their address.
		cp := reflect.New(rv.Type()).Elem()
		cp.Set(rv)
		rv = cp
	}
	if err := e.value(rv, ""); err != nil {
		return "", err
	}
	buf.WriteByte('\n') // as json.Encoder
	return e.first, nil
}

type finiteEncoder struct {
	buf   *bytes.Buffer
	first string
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// usable returns v readable through Interface: values reached through
// unexported embedded fields are read-only to reflect, so they are
// re-read through their address.
func usable(v reflect.Value) reflect.Value {
	if v.CanInterface() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (e *finiteEncoder) null(path string) {
	if e.first == "" {
		e.first = path
		if e.first == "" {
			e.first = "(body)"
		}
	}
	e.buf.WriteString("null")
}

func (e *finiteEncoder) leaf(v reflect.Value) error {
	b, err := json.Marshal(usable(v).Interface())
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	e.buf.Write(b)
	return nil
}

func (e *finiteEncoder) value(v reflect.Value, path string) error {
	if !v.IsValid() {
		e.buf.WriteString("null")
		return nil
	}
	t := v.Type()
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		(t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
			v.CanAddr() && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType))) {
		if v.CanAddr() {
			return e.leaf(usable(v).Addr())
		}
		return e.leaf(v)
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			e.null(path)
			return nil
		}
		var b []byte // finite: Marshal never fails
		if t.Kind() == reflect.Float32 {
			b, _ = json.Marshal(float32(f))
		} else {
			b, _ = json.Marshal(f)
		}
		e.buf.Write(b)
		return nil
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.String:
		return e.leaf(v)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf.WriteString("null")
			return nil
		}
		return e.value(v.Elem(), path)
	case reflect.Struct:
		return e.object(v, path)
	case reflect.Map:
		if v.IsNil() {
			e.buf.WriteString("null")
			return nil
		}
		return e.mapping(v, path)
	case reflect.Slice:
		if v.IsNil() {
			e.buf.WriteString("null")
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return e.leaf(v) // base64, as encoding/json
		}
		fallthrough
	case reflect.Array:
		e.buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			if err := e.value(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		e.buf.WriteByte(']')
		return nil
	}
	return fmt.Errorf("encode response: unsupported type %s", t)
}

// object writes a struct's fields (embedded structs flattened).
func (e *finiteEncoder) object(v reflect.Value, path string) error {
	e.buf.WriteByte('{')
	n := 0
	if err := e.fields(v, path, &n); err != nil {
		return err
	}
	e.buf.WriteByte('}')
	return nil
}

func (e *finiteEncoder) fields(v reflect.Value, path string, n *int) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				ft, fv = ft.Elem(), fv.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := e.fields(fv, path, n); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if slices.Contains(strings.Split(opts, ","), "omitempty") && emptyValue(fv) {
			continue
		}
		if slices.Contains(strings.Split(opts, ","), "omitzero") && zeroValue(fv) {
			continue
		}
		if *n > 0 {
			e.buf.WriteByte(',')
		}
		*n++
		key, _ := json.Marshal(name)
		e.buf.Write(key)
		e.buf.WriteByte(':')
		sub := name
		if path != "" {
			sub = path + "." + name
		}
		if err := e.value(fv, sub); err != nil {
			return err
		}
	}
	return nil
}

// mapping writes a map with its keys sorted as encoding/json does.
func (e *finiteEncoder) mapping(v reflect.Value, path string) error {
	type kv struct {
		k string
		v reflect.Value
	}
	kvs := make([]kv, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		k := it.Key()
		var ks string
		switch {
		case k.Kind() == reflect.String:
			ks = k.String()
		case k.Type().Implements(textMarshalerType):
			b, err := usable(k).Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return fmt.Errorf("encode response: %w", err)
			}
			ks = string(b)
		case k.CanInt():
			ks = strconv.FormatInt(k.Int(), 10)
		case k.CanUint():
			ks = strconv.FormatUint(k.Uint(), 10)
		default:
			return fmt.Errorf("encode response: unsupported map key %s", k.Type())
		}
		kvs = append(kvs, kv{ks, it.Value()})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	e.buf.WriteByte('{')
	for i, x := range kvs {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		key, _ := json.Marshal(x.k)
		e.buf.Write(key)
		e.buf.WriteByte(':')
		sub := x.k
		if path != "" {
			sub = path + "." + x.k
		}
		if err := e.value(x.v, sub); err != nil {
			return err
		}
	}
	e.buf.WriteByte('}')
	return nil
}

// zeroValue is encoding/json's omitzero test: an IsZero method, else the
// zero value.
func zeroValue(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		return z.IsZero()
	}
	return v.IsZero()
}

// emptyValue is encoding/json's omitempty test.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
