// CratedGrid: see its issue; sources land here.
