// CratedPlayback: see its issue; sources land here.
