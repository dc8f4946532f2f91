package cli

import (
	"encoding"
	"encoding/json"
	"reflect"
)

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// emptyLists returns v with every nil slice it holds (in structs, maps, slices, behind
// pointers and interfaces) made an empty one, so that --format json prints [] for an empty
// list, never null: a script reading the output can range over every list it names. Values
// that marshal themselves are left as they are; so are nil pointers and maps, which stand for
// an absent object.
func emptyLists(v any) any {
	if v == nil {
		return nil
	}
	return fill(reflect.ValueOf(v)).Interface()
}

func fill(v reflect.Value) reflect.Value {
	t := v.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(fill(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(t).Elem()
		out.Set(fill(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(t).Elem()
		out.Set(v) // unexported fields as they were
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				out.Field(i).Set(fill(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte is a string in JSON
			return v
		}
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(fill(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), fill(it.Value()))
		}
		return out
	}
	return v
}
