package gormstore

import (
	"context"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// storedFileRow mirrors stored_files.
type storedFileRow struct {
	ID          int64
	SchoolID    int64
	Name        string
	ContentType string
	SizeBytes   int64
	SHA256      string `gorm:"column:sha256"`
	StoragePath string
	UploadedBy  *int64
	CreatedAt   time.Time `gorm:"autoCreateTime:false"`
}

func (storedFileRow) TableName() string { return "stored_files" }

// CreateStoredFile records an uploaded file.
func (s *Store) CreateStoredFile(ctx context.Context, f storage.StoredFile) (storage.StoredFile, error) {
	op := fmt.Sprintf("record stored file %q", f.Name)
	sc, err := s.scopedInput(ctx, op, invalid{f.StoragePath == "", "storage path is empty"})
	if err != nil {
		return storage.StoredFile{}, err
	}
	row := storedFileRow{
		SchoolID: sc.schoolID, Name: f.Name, ContentType: f.ContentType, SizeBytes: f.SizeBytes,
		SHA256: f.SHA256, StoragePath: f.StoragePath, UploadedBy: f.UploadedBy, CreatedAt: dbTime(s.now()),
	}
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.StoredFile{}, wrap(op, err)
	}
	return row.file(), nil
}

// GetStoredFile returns one file of the context's school; another school's is ErrNotFound.
func (s *Store) GetStoredFile(ctx context.Context, id int64) (storage.StoredFile, error) {
	return getScoped(s, ctx, fmt.Sprintf("get stored file %d", id), storedFileRow.file, "id = ?", id)
}

func (row storedFileRow) file() storage.StoredFile {
	return storage.StoredFile{
		ID: row.ID, Name: row.Name, ContentType: row.ContentType, SizeBytes: row.SizeBytes, SHA256: row.SHA256,
		StoragePath: row.StoragePath, UploadedBy: row.UploadedBy, CreatedAt: utc(row.CreatedAt),
	}
}
