package passkey_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"sort"
	"testing"
)

// authenticator is a software WebAuthn authenticator with the browser around it, built from
// the specification (WebAuthn Level 3, sections 5.1.3, 5.1.4, 6.1, 6.5): it answers creation
// options with a "none" attestation and request options with an assertion signed by an ECDSA
// P-256 key, as a browser at origin would send them. Every credential is discoverable and every
// ceremony user-verified, unless the test says otherwise.
type authenticator struct {
	t      *testing.T
	origin string
	// synced makes new credentials backup eligible and backed up (a synced passkey).
	synced bool
	// skipUV leaves the user-verified flag off.
	skipUV bool
	// counting makes the signature counter count (else it stays 0, as synced passkeys do).
	counting bool
	creds    []*softCredential
}

type softCredential struct {
	id         []byte
	key        *ecdsa.PrivateKey
	rpID       string
	userHandle []byte
	count      uint32
	synced     bool
}

// options is the part of a begin endpoint's answer the authenticator reads.
type options struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RPID      string `json:"rpId"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
		UserVerification   string                `json:"userVerification"`
		AllowCredentials   []struct{ ID string } `json:"allowCredentials"`
		ExcludeCredentials []struct{ ID string } `json:"excludeCredentials"`
		Authenticator      struct {
			UserVerification string `json:"userVerification"`
			ResidentKey      string `json:"residentKey"`
		} `json:"authenticatorSelection"`
	} `json:"publicKey"`
}

var b64 = base64.RawURLEncoding

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := b64.DecodeString(s)
	if err != nil {
		t.Fatalf("base64url %q: %v", s, err)
	}
	return b
}

const (
	flagUP = 0x01
	flagUV = 0x04
	flagBE = 0x08
	flagBS = 0x10
	flagAT = 0x40
)

func (a *authenticator) flags(c *softCredential) byte {
	f := byte(flagUP)
	if !a.skipUV {
		f |= flagUV
	}
	if c.synced {
		f |= flagBE | flagBS
	}
	return f
}

// create answers creation options (navigator.credentials.create) with the credential's JSON.
func (a *authenticator) create(opts options) []byte {
	a.t.Helper()
	o := opts.PublicKey
	if o.Authenticator.ResidentKey != "required" || o.Authenticator.UserVerification != "required" {
		a.t.Errorf("creation options ask for resident key %q, user verification %q; want required, required",
			o.Authenticator.ResidentKey, o.Authenticator.UserVerification)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		a.t.Fatal(err)
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	c := &softCredential{id: id, key: key, rpID: o.RP.ID, userHandle: mustDecode(a.t, o.User.ID), synced: a.synced}
	if a.counting {
		c.count = 1
	}
	a.creds = append(a.creds, c)

	// Attested credential data: AAGUID (zero), the id's length and the id, the COSE key
	// (RFC 9053: kty EC2, alg ES256, crv P-256, x, y).
	var acd bytes.Buffer
	acd.Write(make([]byte, 16))
	_ = binary.Write(&acd, binary.BigEndian, uint16(len(id)))
	acd.Write(id)
	x, y := make([]byte, 32), make([]byte, 32)
	key.PublicKey.X.FillBytes(x)
	key.PublicKey.Y.FillBytes(y)
	acd.Write(cborMap(map[any]any{1: 2, 3: -7, -1: 1, -2: x, -3: y}))

	authData := a.authData(c, flagAT, acd.Bytes())
	att := cborMap(map[any]any{"fmt": "none", "attStmt": map[any]any{}, "authData": authData})
	cd := a.clientData("webauthn.create", o.Challenge)
	return a.marshal(map[string]any{
		"id": b64.EncodeToString(id), "rawId": b64.EncodeToString(id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON": b64.EncodeToString(cd), "attestationObject": b64.EncodeToString(att),
			"transports": []string{"internal", "hybrid"},
		},
	})
}

// get answers request options (navigator.credentials.get) with an assertion of the credential
// c, as the authenticator would make it for rpID, seen from the authenticator's origin.
func (a *authenticator) get(opts options, c *softCredential, rpID string) []byte {
	a.t.Helper()
	if a.counting {
		c.count++
	}
	authData := a.authDataFor(c, rpID, 0, nil)
	cd := a.clientData("webauthn.get", opts.PublicKey.Challenge)
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte(nil), authData...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, c.key, digest[:])
	if err != nil {
		a.t.Fatal(err)
	}
	return a.marshal(map[string]any{
		"id": b64.EncodeToString(c.id), "rawId": b64.EncodeToString(c.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(authData),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(c.userHandle),
		},
	})
}

// assert is get with the credential's own relying party id.
func (a *authenticator) assert(opts options, c *softCredential) []byte { return a.get(opts, c, c.rpID) }

func (a *authenticator) authData(c *softCredential, extra byte, attested []byte) []byte {
	return a.authDataFor(c, c.rpID, extra, attested)
}

// authDataFor is authenticator data (WebAuthn section 6.1): the relying party id's hash, the
// flags, the counter, and for a creation the attested credential data.
func (a *authenticator) authDataFor(c *softCredential, rpID string, extra byte, attested []byte) []byte {
	rp := sha256.Sum256([]byte(rpID))
	var b bytes.Buffer
	b.Write(rp[:])
	b.WriteByte(a.flags(c) | extra)
	_ = binary.Write(&b, binary.BigEndian, c.count)
	b.Write(attested)
	return b.Bytes()
}

func (a *authenticator) clientData(typ, challenge string) []byte {
	return a.marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.origin, "crossOrigin": false})
}

func (a *authenticator) marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// cborMap encodes m in CBOR (RFC 8949) with the few types the attestation object and a COSE
// key need: ints, text, bytes and maps, keys in the canonical order (shorter first).
func cborMap(m map[any]any) []byte {
	var b bytes.Buffer
	cborWrite(&b, m)
	return b.Bytes()
}

func cborHead(b *bytes.Buffer, major byte, n uint64) {
	switch {
	case n < 24:
		b.WriteByte(major<<5 | byte(n))
	case n < 1<<8:
		b.WriteByte(major<<5 | 24)
		b.WriteByte(byte(n))
	case n < 1<<16:
		b.WriteByte(major<<5 | 25)
		_ = binary.Write(b, binary.BigEndian, uint16(n))
	default:
		b.WriteByte(major<<5 | 26)
		_ = binary.Write(b, binary.BigEndian, uint32(n))
	}
}

func cborWrite(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case int:
		if v >= 0 {
			cborHead(b, 0, uint64(v))
		} else {
			cborHead(b, 1, uint64(-1-v))
		}
	case string:
		cborHead(b, 3, uint64(len(v)))
		b.WriteString(v)
	case []byte:
		cborHead(b, 2, uint64(len(v)))
		b.Write(v)
	case map[any]any:
		type entry struct{ k, v []byte }
		var es []entry
		for k, val := range v {
			var kb, vb bytes.Buffer
			cborWrite(&kb, k)
			cborWrite(&vb, val)
			es = append(es, entry{kb.Bytes(), vb.Bytes()})
		}
		sort.Slice(es, func(i, j int) bool {
			if len(es[i].k) != len(es[j].k) {
				return len(es[i].k) < len(es[j].k)
			}
			return bytes.Compare(es[i].k, es[j].k) < 0
		})
		cborHead(b, 5, uint64(len(es)))
		for _, e := range es {
			b.Write(e.k)
			b.Write(e.v)
		}
	default:
		panic("cbor: unsupported type")
	}
}
