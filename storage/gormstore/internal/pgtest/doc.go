// Package pgtest creates throwaway PostgreSQL schemas for the tests of gormstore and of
// storetest, so that tests run in parallel against one server and leave nothing behind. It is
// apart from storetest because gormstore's own tests cannot import storetest (which imports
// gormstore).
package pgtest
