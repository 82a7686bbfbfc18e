// CratedAPI: see its issue; sources land here.
