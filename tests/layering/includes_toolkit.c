/* Must compile in the kernels layer (the control: the probes fail for the header, not the setup). */
#include "model.h"
int storq_layering_probe(void) { return STORQ_OK; }
