package actions

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A plain call: the path parameter filled, the header sent, the status
// and body fed back, the JSON checked against the schema.
func TestCallGetOrder(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	res, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "getOrder", `{"id": "o 42", "X-Trace": "t1"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || !strings.Contains(res.Body, `"id": "o 42"`) || !strings.Contains(res.Body, `"trace": "t1"`) || res.Mismatch != "" {
		t.Fatalf("result %+v", res)
	}
	fed := res.Fed()
	if !strings.HasPrefix(fed, "HTTP 200 from GET "+api.URL+"/api/orders/o%2042") {
		t.Fatalf("fed %q", fed)
	}
	res, err = (&Client{AllowLocal: true}).Call(t.Context(), s, "placeOrder", `{"sku": "A1", "qty": 2}`)
	if err != nil || res.Status != 201 || !strings.Contains(res.Body, `"sku": "A1"`) {
		t.Fatalf("placeOrder: %+v %v", res, err)
	}
	if _, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "getOrder", `{}`); err == nil || !strings.Contains(err.Error(), `needs the argument "id"`) {
		t.Fatalf("missing path parameter: %v", err)
	}
	if _, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "nope", `{}`); !errors.Is(err, ErrNoOperation) {
		t.Fatalf("unknown operation: %v", err)
	}
}

// A JSON answer that does not fit the schema is fed back with the
// mismatch said.
func TestCallResponseMismatch(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	res, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "bad", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mismatch == "" || !strings.Contains(res.Fed(), "does not match the schema") {
		t.Fatalf("mismatch not said: %+v", res)
	}
}

// ../ in a path parameter cannot walk: refused before any request, and
// the server never sees a path outside the operation's.
func TestCallPathParameterCannotWalk(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	for _, id := range []string{"../../admin", "..", "a/../../b", `..\admin`, "x/y", "%2e%2e"} {
		_, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "getOrder", `{"id": "`+strings.ReplaceAll(id, `\`, `\\`)+`"}`)
		hits, _ := api.seen()
		if id == "%2e%2e" {
			// escaped, it is one odd segment: sent as %252e%252e, inside /orders/
			if err != nil || len(hits) != 1 || !strings.HasSuffix(hits[0], "/api/orders/%252e%252e") {
				t.Fatalf("%q: %v, hits %v", id, err, hits)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("%q: err %v, want refused", id, err)
		}
		if len(hits) != 0 {
			t.Fatalf("%q reached the server: %v", id, hits)
		}
	}
}

// A redirect to another host is refused; that host is never asked.
func TestCallRedirectToAnotherHostRefused(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	_, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "away", `{}`)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "another host") {
		t.Fatalf("redirect: %v", err)
	}
	hits, _ := api.seen()
	for _, h := range hits {
		if strings.Contains(h, "/collect") {
			t.Fatalf("the other host was asked: %v", hits)
		}
	}
}

// A slow endpoint ends at the timeout with words; the default is 45 s.
func TestCallTimeout(t *testing.T) {
	if Timeout != 45*time.Second {
		t.Fatalf("Timeout %s, want ChatGPT's 45s", Timeout)
	}
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	start := time.Now()
	_, err := (&Client{AllowLocal: true, Timeout: 300 * time.Millisecond}).Call(t.Context(), s, "slow", `{}`)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Fatalf("slow: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the timeout took %s", d)
	}
}

// A 5 MB answer is cut at 100,000 characters and the model is told.
func TestCallBigResponseCut(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	res, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "big", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cut || len(res.Body) != MaxChars || res.Size != 5<<20 {
		t.Fatalf("cut %v, body %d, size %d", res.Cut, len(res.Body), res.Size)
	}
	if !strings.Contains(res.Fed(), "the response was 5242880 bytes; only its first 100000 characters were read") {
		t.Fatalf("not said: %.300s", res.Fed())
	}
}

// A request over 100,000 characters is not sent, and that is said.
func TestCallRequestTooLong(t *testing.T) {
	api := newShopAPI(t)
	s := mustParse(t, schema(t, "shop.yaml", api.URL))
	_, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "placeOrder", `{"sku": "`+strings.Repeat("a", MaxChars)+`"}`)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "more than the 100000") {
		t.Fatalf("long request: %v", err)
	}
	if hits, _ := api.seen(); len(hits) != 0 {
		t.Fatalf("sent: %v", hits)
	}
}

// Air-gapped: an address outside loopback and the LAN is refused at the
// dial, with the reason; loopback is called.
func TestCallAirGapped(t *testing.T) {
	api := newShopAPI(t)
	local := mustParse(t, schema(t, "shop.yaml", api.URL))
	if _, err := (&Client{AllowLocal: true, AirGapped: true}).Call(t.Context(), local, "getOrder", `{"id": "1"}`); err != nil {
		t.Fatalf("loopback refused while air-gapped: %v", err)
	}
	// 192.0.2.0/24 is TEST-NET-1: public, never routed; the dial guard
	// refuses it before any packet leaves.
	outside := mustParse(t, schema(t, "shop.yaml", "http://192.0.2.7:8080"))
	_, err := (&Client{AllowLocal: true, AirGapped: true}).Call(t.Context(), outside, "getOrder", `{"id": "1"}`)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "air-gapped") || !strings.Contains(re.Reason, "192.0.2.7:8080") {
		t.Fatalf("outside address while air-gapped: %v", err)
	}
	lan := mustParse(t, schema(t, "shop.yaml", "http://10.255.255.1:9"))
	_, err = (&Client{AllowLocal: true, AirGapped: true, Timeout: 300 * time.Millisecond}).Call(t.Context(), lan, "getOrder", `{"id": "1"}`)
	if errors.As(err, &re) {
		t.Fatalf("a LAN address was refused as outside: %v", err)
	}
}
