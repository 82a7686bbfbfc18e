// CratedSync: see its issue; sources land here.
