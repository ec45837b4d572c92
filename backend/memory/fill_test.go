package memory

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"rehome/backend/store"
)

// Fill writes n memories into the closed database at path in one
// transaction (a store.Put each would sync n times).
func Fill(t *testing.T, path string, n int) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(store.Memories))
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("0FILL%021d", i)
			raw, _ := json.Marshal(Memory{Schema: Schema, ID: id, Text: fmt.Sprintf("Fact number %d about the user.", i), Source: SourceImport, Created: now, Updated: now})
			if err := b.Put([]byte(id), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
