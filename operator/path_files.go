package operator

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// uploadTypes are the media types the school's storage accepts, with the extension a stored
// file gets. Each is one that http.DetectContentType recognises from the content itself, so the
// declared type can be checked against the bytes: an HTML page declared as an image (a stored
// cross-site-scripting attempt) is refused.
var uploadTypes = []struct{ mediaType, ext string }{
	{"image/png", ".png"},
	{"image/jpeg", ".jpg"},
	{"image/gif", ".gif"},
	{"image/webp", ".webp"},
	{"application/pdf", ".pdf"},
	{"video/mp4", ".mp4"},
	{"text/plain", ".txt"},
}

// StoredFile is an uploaded file. Where the server keeps it is not part of the answer.
type StoredFile struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	ContentType string    `json:"content_type"`
	SizeBytes   int64     `json:"size_bytes"`
	SHA256      string    `json:"sha256" doc:"Hex SHA-256 of the content."`
	CreatedAt   time.Time `json:"created_at"`
}

// uploadInput is the file itself as the request body, its media type in Content-Type and its
// name in the query: no multipart envelope to parse, and the size limit applies to the file.
type uploadInput struct {
	Name        string `query:"name" required:"true" minLength:"1" maxLength:"255" doc:"The file's name, shown to people; it never becomes a path on the server."`
	ContentType string `header:"Content-Type" required:"true" doc:"The file's media type."`
	RawBody     []byte `contentType:"image/png"` // one of uploadTypes; registerFiles lists them all
}

func (h *Handler) registerFiles(api huma.API) {
	content := map[string]*huma.MediaType{}
	names := make([]string, len(uploadTypes))
	for i, t := range uploadTypes {
		content[t.mediaType] = &huma.MediaType{Schema: &huma.Schema{Type: "string", Format: "binary"}}
		names[i] = t.mediaType
	}
	o := route("upload-file")
	o.Description += " Accepted types: " + strings.Join(names, ", ") +
		"; the content must be of the declared type. The size limit is the server's request body limit (" +
		strconv.FormatInt(h.maxBody, 10) + " bytes here); a larger body is answered 413."
	o.RequestContent = content
	addOperation(h, api, o, h.upload)
}

func (h *Handler) upload(ctx context.Context, in *uploadInput) (*struct{ Body StoredFile }, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return nil, h.problem(ctx, "school", err)
	}
	if strings.ContainsFunc(in.Name, func(r rune) bool { return unicode.IsControl(r) || r == '/' || r == '\\' }) {
		return nil, invalid("query.name", "a file name has no slashes or control characters", in.Name)
	}
	declared, _, err := mime.ParseMediaType(in.ContentType)
	i := slices.IndexFunc(uploadTypes, func(u struct{ mediaType, ext string }) bool { return u.mediaType == declared })
	if err != nil || i < 0 {
		return nil, huma.Error415UnsupportedMediaType("Files of this type are not accepted.")
	}
	if len(in.RawBody) == 0 {
		return nil, invalid("body", "the file is empty", nil)
	}
	if sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(in.RawBody)); sniffed != declared {
		return nil, invalid("body", "the content is not of the declared type "+declared, sniffed)
	}

	sum := sha256.Sum256(in.RawBody)
	rel := filepath.Join(strconv.FormatInt(t.SchoolID, 10), strings.ToLower(rand.Text())+uploadTypes[i].ext)
	if err := h.writeFile(rel, in.RawBody); err != nil {
		h.log.ErrorContext(ctx, "operator api: upload", "error", err)
		return nil, huma.Error503ServiceUnavailable("The file could not be stored; retry shortly.")
	}
	f, err := h.store.CreateStoredFile(ctx, storage.StoredFile{
		Name: in.Name, ContentType: declared, SizeBytes: int64(len(in.RawBody)), SHA256: hex.EncodeToString(sum[:]),
		StoragePath: filepath.ToSlash(rel), UploadedBy: callerFrom(ctx).memberID(),
	})
	if err != nil {
		// Without its row the file is unreachable: take it away again.
		if rmErr := os.Remove(filepath.Join(h.storageDir, rel)); rmErr != nil {
			h.log.ErrorContext(ctx, "operator api: remove unrecorded upload", "error", rmErr)
		}
		return nil, h.problem(ctx, "file", err)
	}
	return &struct{ Body StoredFile }{StoredFile{
		ID: f.ID, Name: f.Name, ContentType: f.ContentType, SizeBytes: f.SizeBytes, SHA256: f.SHA256, CreatedAt: f.CreatedAt,
	}}, nil
}

// writeFile writes data at rel under the storage directory, through a temporary file renamed
// into place, so that a reader never sees a partial file and a failed write leaves nothing.
func (h *Handler) writeFile(rel string, data []byte) error {
	if h.storageDir == "" {
		return errors.New("no storage directory is configured")
	}
	dst := filepath.Join(h.storageDir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".upload-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// logoFileRule says why uploaded file f cannot be a school's logo, nil when it can: it must be
// one of the raster images a logo may be (never a PDF, a video or text) and no larger than the
// pages show (look.DefaultMaxLogoSize).
func logoFileRule(f storage.StoredFile) error {
	if !look.IsLogoType(f.ContentType) {
		return fmt.Errorf("the file is %s, not a PNG, JPEG, GIF or WebP image", f.ContentType)
	}
	if f.SizeBytes > look.DefaultMaxLogoSize {
		return fmt.Errorf("the image has %d bytes; a logo has at most %d", f.SizeBytes, look.DefaultMaxLogoSize)
	}
	return nil
}

// Files reads uploaded files back for the school's pages: the record through the store, the
// content from the storage directory the API writes to (Deps.StorageDir).
type Files struct {
	Rows FileRows
	Dir  string
}

// Logo is the content of the context school's uploaded image id, when it may be a logo
// (look.Options.LogoFile). Another school's id is storage.ErrNotFound.
func (f Files) Logo(ctx context.Context, id int64) ([]byte, error) {
	row, err := f.Rows.GetStoredFile(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := logoFileRule(row); err != nil {
		return nil, err
	}
	if f.Dir == "" {
		return nil, errors.New("operator: no storage directory is configured")
	}
	// StoragePath is the server's own (school id and a random name, see upload), never a
	// client's.
	return os.ReadFile(filepath.Join(f.Dir, filepath.FromSlash(row.StoragePath)))
}
