package cjson

import (
	"math/big"
	"strings"
	"testing"
)

func TestMarshalCanonical(t *testing.T) {
	big128, _ := new(big.Int).SetString("-170141183460469231731687303715884105728", 10) // −2^127
	for _, tc := range []struct {
		v    any
		want string
	}{
		// §8.5: integers are decimal strings, zero is "0", "-" only before a
		// nonzero value; members in ascending byte order ("Z" < "a" < "b").
		{map[string]any{"b": int64(-5), "a": 0, "Z": uint64(1 << 63)}, `{"Z":"9223372036854775808","a":"0","b":"-5"}`},
		{[]any{nil, true, false, "q\"\\"}, `[null,true,false,"q\"\\"]`},
		{map[string]any{"x": []int64{-1, 0}, "y": []string{}, "z": big128}, `{"x":["-1","0"],"y":[],"z":"-170141183460469231731687303715884105728"}`},
		{Raw(`{"k":"1"}`), `{"k":"1"}`},
		{map[string]any{"key_b": 1, "key": 2, "key.a": 3}, `{"key":"2","key.a":"3","key_b":"1"}`},
	} {
		b, err := Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("Marshal(%v) = %s, want %s", tc.v, b, tc.want)
		}
	}
}

func TestMarshalRefusesNonASCII(t *testing.T) {
	for _, s := range []string{"tab\there", "é", "nl\n"} {
		if _, err := Marshal(s); err == nil {
			t.Errorf("Marshal(%q) accepted a character §8.5 excludes", s)
		}
	}
	if _, err := Marshal(3.5); err == nil {
		t.Error("Marshal accepted a float")
	}
}

func TestIntIsStrict(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "-1": -1, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63} {
		if n, err := Int(s); err != nil || n != want {
			t.Errorf("Int(%q) = %d, %v", s, n, err)
		}
	}
	for _, s := range []any{"-0", "01", "+1", "", "1e3", " 1", "9223372036854775808", float64(1)} {
		if _, err := Int(s); err == nil {
			t.Errorf("Int(%v) accepted a non-canonical or out-of-range integer", s)
		}
	}
	if n, err := BigInt("-340282366920938463463374607431768211456"); err != nil || n.BitLen() != 129 {
		t.Errorf("BigInt: %v %v", n, err)
	}
}

func TestUnmarshalRejectsTrailingData(t *testing.T) {
	if _, err := Unmarshal([]byte(`{"a":"1"} {}`)); err == nil || !strings.Contains(err.Error(), "after") {
		t.Fatalf("err = %v", err)
	}
	v, err := Unmarshal([]byte(`{"a":["1",null]}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Marshal(v); string(b) != `{"a":["1",null]}` {
		t.Fatalf("round trip %s", b)
	}
}
