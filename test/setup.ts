// Frames and text output are compared without colour, whatever the developer's terminal says.
process.env.FORCE_COLOR = '0';
delete process.env.NO_COLOR;
