package mfa

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"image/png"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// RecoveryCodeCount is how many recovery codes a member gets at a time.
const RecoveryCodeCount = 10

// ErrEnrolled means the member already has a confirmed TOTP factor: it must be removed before
// another is enrolled.
var ErrEnrolled = errors.New("mfa: TOTP is already on")

// ServiceDeps are what a Service is built from.
type ServiceDeps struct {
	Store  factor.Store
	Secret config.Secret
	Now    func() time.Time // nil: time.Now
}

// Service verifies and manages second factors. It is login.SecondFactors.
type Service struct {
	store factor.Store
	now   func() time.Time
	// sealKey seals TOTP secrets; codeKey hashes recovery codes. Separate derived keys.
	sealKey, codeKey []byte
}

var _ login.SecondFactors = (*Service)(nil)

// NewService checks d and returns the service.
func NewService(d ServiceDeps) (*Service, error) {
	if d.Store == nil {
		return nil, errors.New("mfa: no store")
	}
	if len(d.Secret) < config.MinSecretBytes {
		return nil, fmt.Errorf("mfa: the secret must hold at least %d bytes", config.MinSecretBytes)
	}
	s := &Service{store: d.Store, now: d.Now, sealKey: d.Secret.Derive("totp secret v1"), codeKey: d.Secret.Derive("recovery code v1")}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Summary is what the member has enrolled at the context's school.
func (s *Service) Summary(ctx context.Context, memberID int64) (factor.Summary, error) {
	sums, err := s.store.FactorSummaries(ctx, []int64{memberID})
	if err != nil {
		return factor.Summary{}, err
	}
	return sums[memberID], nil
}

// MarkSessionFactor records a second factor entered in a session (factor.SessionMarker).
func (s *Service) MarkSessionFactor(ctx context.Context, sessionID string, amr []string, at time.Time) error {
	return s.store.MarkSessionFactor(ctx, sessionID, amr, at)
}

// VerifyCode checks a TOTP or recovery code the member typed and uses it up.
func (s *Service) VerifyCode(ctx context.Context, memberID int64, raw string) (factor.Kind, bool, error) {
	code, ok := login.ReadCodeField(raw)
	kind := login.CodeKind(code)
	if !ok {
		return kind, false, nil
	}
	if kind == factor.KindTOTP {
		ok, err := s.verifyTOTP(ctx, memberID, code, true)
		return kind, ok, err
	}
	hash, err := s.codeHash(ctx, memberID, code)
	if err != nil {
		return kind, false, err
	}
	err = s.store.ConsumeRecoveryCode(ctx, memberID, hash, s.now())
	if errors.Is(err, storage.ErrNotFound) {
		return kind, false, nil
	}
	return kind, err == nil, err
}

// verifyTOTP checks code against the member's confirmed TOTP factor and records its step, so that
// it is never accepted again; with confirmed false, against the pending factor, which it then
// confirms (ConfirmTOTP).
func (s *Service) verifyTOTP(ctx context.Context, memberID int64, code string, confirmed bool) (bool, error) {
	t, err := s.store.GetTOTP(ctx, memberID)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if confirmed != !t.ConfirmedAt.IsZero() {
		return false, nil
	}
	secret, err := s.open(ctx, memberID, t.Sealed)
	if err != nil {
		return false, err
	}
	st, ok := matchStep(secret, code, s.now(), t.LastStep)
	if !ok {
		return false, nil
	}
	if confirmed {
		err = s.store.AcceptTOTPStep(ctx, memberID, st)
	} else {
		err = s.store.ConfirmTOTP(ctx, memberID, st, s.now())
	}
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil // the step was used meanwhile (or the factor changed)
	}
	return err == nil, err
}

// Enrolment is a pending TOTP secret as the enrolment page shows it.
type Enrolment struct {
	Secret string // base32, as authenticator apps take it
	QRCode string // data:image/png;base64,...
}

// BeginTOTP returns the member's pending TOTP secret, making one if there is none, with its QR
// code naming the school (issuer) and the member's address. ErrEnrolled if TOTP is already on.
func (s *Service) BeginTOTP(ctx context.Context, memberID int64, issuer, account string) (Enrolment, error) {
	var secret []byte
	t, err := s.store.GetTOTP(ctx, memberID)
	switch {
	case err == nil && !t.ConfirmedAt.IsZero():
		return Enrolment{}, ErrEnrolled
	case err == nil:
		if secret, err = s.open(ctx, memberID, t.Sealed); err != nil {
			return Enrolment{}, err
		}
	case errors.Is(err, storage.ErrNotFound):
		secret = make([]byte, secretSize)
		_, _ = rand.Read(secret)
		sealed, err := s.seal(ctx, memberID, secret)
		if err != nil {
			return Enrolment{}, err
		}
		if err := s.store.PutPendingTOTP(ctx, memberID, sealed, s.now()); err != nil {
			return Enrolment{}, err
		}
	default:
		return Enrolment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Secret: secret})
	if err != nil {
		return Enrolment{}, fmt.Errorf("mfa: totp key: %w", err)
	}
	img, err := key.Image(200, 200)
	if err != nil {
		return Enrolment{}, fmt.Errorf("mfa: QR code: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Enrolment{}, fmt.Errorf("mfa: QR code: %w", err)
	}
	return Enrolment{Secret: key.Secret(), QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}, nil
}

// ConfirmTOTP turns the pending factor on if code is its current code, and returns new recovery
// codes (shown once). ok is false for a wrong code or when nothing is pending.
func (s *Service) ConfirmTOTP(ctx context.Context, memberID int64, raw string) (codes []string, ok bool, err error) {
	code, ok := login.ReadCodeField(raw)
	if !ok || login.CodeKind(code) != factor.KindTOTP {
		return nil, false, nil
	}
	if ok, err = s.verifyTOTP(ctx, memberID, code, false); err != nil || !ok {
		return nil, false, err
	}
	codes, err = s.NewRecoveryCodes(ctx, memberID)
	return codes, err == nil, err
}

// RemoveTOTP turns TOTP off, with the member's recovery codes; storage.ErrNotFound if it was
// not on (or pending).
func (s *Service) RemoveTOTP(ctx context.Context, memberID int64) error {
	return s.store.DeleteTOTP(ctx, memberID)
}

// NewRecoveryCodes replaces the member's recovery codes with RecoveryCodeCount new ones and
// returns them as they are shown ("abcde-fghij"); only their keyed hashes are stored.
func (s *Service) NewRecoveryCodes(ctx context.Context, memberID int64) ([]string, error) {
	codes := make([]string, RecoveryCodeCount)
	hashes := make([]string, RecoveryCodeCount)
	for i := range codes {
		c := newRecoveryCode()
		h, err := s.codeHash(ctx, memberID, c)
		if err != nil {
			return nil, err
		}
		codes[i], hashes[i] = c[:5]+"-"+c[5:], h
	}
	if err := s.store.ReplaceRecoveryCodes(ctx, memberID, hashes, s.now()); err != nil {
		return nil, err
	}
	return codes, nil
}

// recoveryEncoding is base32's alphabet, lower-case: no 0, 1 or 8 to read as O, I or B.
var recoveryEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newRecoveryCode returns 10 characters of 50 random bits.
func newRecoveryCode() string {
	b := make([]byte, 7)
	_, _ = rand.Read(b)
	return recoveryEncoding.EncodeToString(b)[:10]
}

// codeHash is the stored form of a recovery code: HMAC-SHA256 over the school, the member and
// the code, so that equal codes of two members never share a row and a copied hash is useless
// elsewhere.
func (s *Service) codeHash(ctx context.Context, memberID int64, code string) (string, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return "", err
	}
	return login.TokenID(s.codeKey, strconv.FormatInt(t.SchoolID, 10)+"|"+strconv.FormatInt(memberID, 10)+"|"+strings.ToLower(code)), nil
}

// sealAAD binds a sealed secret to its school and member: a ciphertext copied to another row
// does not open.
func sealAAD(ctx context.Context, memberID int64) ([]byte, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return []byte("totp|" + strconv.FormatInt(t.SchoolID, 10) + "|" + strconv.FormatInt(memberID, 10)), nil
}

func (s *Service) aead() cipher.AEAD {
	block, err := aes.NewCipher(s.sealKey)
	if err != nil {
		panic(err) // a derived key is always 32 bytes
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return g
}

// seal encrypts a secret: a random nonce, then the AES-GCM ciphertext.
func (s *Service) seal(ctx context.Context, memberID int64, secret []byte) ([]byte, error) {
	aad, err := sealAAD(ctx, memberID)
	if err != nil {
		return nil, err
	}
	g := s.aead()
	nonce := make([]byte, g.NonceSize())
	_, _ = rand.Read(nonce)
	return g.Seal(nonce, nonce, secret, aad), nil
}

// open decrypts a sealed secret.
func (s *Service) open(ctx context.Context, memberID int64, sealed []byte) ([]byte, error) {
	aad, err := sealAAD(ctx, memberID)
	if err != nil {
		return nil, err
	}
	g := s.aead()
	if len(sealed) < g.NonceSize() {
		return nil, errors.New("mfa: sealed secret too short")
	}
	out, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], aad)
	if err != nil {
		return nil, fmt.Errorf("mfa: open TOTP secret: %w", err)
	}
	return out, nil
}
