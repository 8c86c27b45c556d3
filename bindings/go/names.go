package isolation

import (
	"reflect"
	"strconv"
	"strings"
)

type reflectType = reflect.Type

func configType() reflect.Type    { return reflect.TypeOf(Config{}) }
func envPolicyType() reflect.Type { return reflect.TypeOf(EnvPolicy{}) }

// fieldPath: a key below t in cordon's spelling ("expose_paths[0].source",
// "set.FOO") in Go's ("ExposePaths[0].Source", `Set["FOO"]`), by the json
// tags; what it cannot name stays as cordon wrote it.
func fieldPath(t reflect.Type, key string) string {
	var out strings.Builder
	for key != "" {
		seg := key
		if i := strings.IndexByte(key, '.'); i >= 0 {
			seg, key = key[:i], key[i+1:]
		} else {
			key = ""
		}
		name, index := seg, ""
		if i := strings.IndexByte(seg, '['); i >= 0 {
			name, index = seg[:i], seg[i:]
		}
		for t != nil && t.Kind() == reflect.Ptr {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Map {
			out.WriteString("[" + strconv.Quote(seg) + "]")
			t = t.Elem()
			continue
		}
		f, ok := fieldOf(t, name)
		if !ok {
			if out.Len() > 0 {
				out.WriteByte('.')
			}
			out.WriteString(seg)
			if key != "" {
				out.WriteString("." + key)
			}
			return out.String()
		}
		if out.Len() > 0 {
			out.WriteByte('.')
		}
		out.WriteString(f.Name + index)
		t = f.Type
		for index != "" && t.Kind() == reflect.Slice {
			t = t.Elem()
			index = index[strings.IndexByte(index, ']')+1:]
		}
	}
	return out.String()
}

func fieldOf(t reflect.Type, tag string) (reflect.StructField, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if strings.Split(f.Tag.Get("json"), ",")[0] == tag {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
