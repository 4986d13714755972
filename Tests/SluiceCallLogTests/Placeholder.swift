// The SQLite call log's tests go here.
