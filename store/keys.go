package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Key encodings. Ids are 8-byte big-endian so a cursor walks them in numeric order;
// strings inside composite keys are prefixed with their length (uvarint) so that no
// byte of a string can be confused with a separator and a prefix scan on one string
// never matches a longer one.

// u64 encodes n as an 8-byte big-endian key.
func u64(n uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), n)
}

// readU64 decodes an 8-byte big-endian key or value; anything else reads as 0.
func readU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// strKey encodes strings as a composite key: each one length-prefixed.
func strKey(parts ...string) []byte {
	var k []byte
	for _, p := range parts {
		k = binary.AppendUvarint(k, uint64(len(p)))
		k = append(k, p...)
	}
	return k
}

// strIDKey is strKey(s) followed by id: an index entry of id under s.
func strIDKey(s string, id uint64) []byte {
	return binary.BigEndian.AppendUint64(strKey(s), id)
}

// timeIDKey orders index entries by time, then id. Times before 1970 read as 1970 and
// times past 2262 (out of UnixNano's range) as the greatest key.
func timeIDKey(t time.Time, id uint64) []byte {
	return binary.BigEndian.AppendUint64(u64(timeNanos(t)), id)
}

// timeNanos is t as nanoseconds since 1970, clamped to [0, MaxUint64].
func timeNanos(t time.Time) uint64 {
	switch {
	case t.Before(time.Unix(0, 0)):
		return 0
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxUint64
	}
	return uint64(t.UnixNano())
}

// keyNanos returns the time part of a timeIDKey.
func keyNanos(k []byte) uint64 {
	if len(k) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k[:8])
}

// putJSON stores v as JSON under key.
func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	return b.Put(key, data)
}

// getJSON decodes the JSON under key into v; false when the key is absent.
func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) {
	data := b.Get(key)
	if data == nil {
		return false, nil
	}
	return true, decodeJSON(key, data, v)
}

// getAs is getJSON into a new T.
func getAs[T any](b *bolt.Bucket, key []byte) (T, bool, error) {
	var v T
	ok, err := getJSON(b, key, &v)
	return v, ok, err
}

// allAs decodes every value of b into a T, in key order.
func allAs[T any](b *bolt.Bucket) ([]T, error) {
	var out []T
	err := b.ForEach(func(k, v []byte) error {
		var x T
		if err := decodeJSON(k, v, &x); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// lastAs decodes at most limit values of b into Ts, last key first; limit <= 0 means
// every value.
func lastAs[T any](b *bolt.Bucket, limit int) ([]T, error) {
	var out []T
	c := b.Cursor()
	for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
		var x T
		if err := decodeJSON(k, v, &x); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// getIndexed reads with get the record whose id an index bucket holds under key;
// false when the index has no such key.
func getIndexed[T any](tx *bolt.Tx, index, key []byte,
	get func(*bolt.Tx, uint64) (T, bool, error)) (T, bool, error) {
	v := tx.Bucket(index).Get(key)
	if v == nil {
		var zero T
		return zero, false, nil
	}
	return get(tx, readU64(v))
}

// decodeJSON decodes the value data of key into v.
func decodeJSON(key, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a step's arguments keep their numbers as written
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode key %x: %w", key, err)
	}
	return nil
}

// prefixKeys returns a copy of every key of b that starts with prefix, in order.
func prefixKeys(b *bolt.Bucket, prefix []byte) [][]byte {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && hasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	return keys
}

func hasPrefix(k, prefix []byte) bool {
	return len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix)
}

// idSuffix returns the id that ends an index key.
func idSuffix(k []byte) uint64 {
	if len(k) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k[len(k)-8:])
}
