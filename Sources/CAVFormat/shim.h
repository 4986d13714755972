// FFmpeg's libavformat (Debian's libavformat-dev): the recorder's WebM and MP4 muxer. Only the
// muxing half is used; nothing is decoded or encoded.
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/channel_layout.h>

// AVERROR is a function-like macro, which Swift does not import.
static inline int sluice_averror(int posix_error) { return AVERROR(posix_error); }
