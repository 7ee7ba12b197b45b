/* Not the header's static stdio callbacks (OV_CALLBACKS_DEFAULT...): alarm-stream reads from
   memory through its own. */
#define OV_EXCLUDE_STATIC_CALLBACKS
#include <vorbis/vorbisfile.h>
