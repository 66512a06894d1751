//! YAML reading with errors that name the file, line and field.
